import type { KubeApis } from './kube-client.js';
import type { Logger } from '../logger.js';
import type { SharedInformers } from '../manager/controller.js';
import { startCoreInformer } from './core-informer.js';
import type { Slim, SlimInformer } from './slim-informer.js';
import { slimNode, slimPod } from './slim-pod.js';

/** Informers started on first use and shared; `stopAll` stops every one started. */
export function createSharedInformers(
  kube: KubeApis,
  logger: Logger,
): SharedInformers & { stopAll(): Promise<void> } {
  const started = new Map<string, SlimInformer<Slim>>();
  const get = <T extends Slim>(key: string, start: () => SlimInformer<T>): SlimInformer<T> => {
    let inf = started.get(key) as SlimInformer<T> | undefined;
    if (!inf) {
      inf = start();
      started.set(key, inf);
    }
    return inf;
  };
  return {
    get,
    pods: () =>
      get('pods', () =>
        startCoreInformer(kube, logger, {
          resource: 'pods',
          slim: slimPod,
          list: (page) => kube.core.listPodForAllNamespaces(page),
        }),
      ),
    nodes: () =>
      get('nodes', () =>
        startCoreInformer(kube, logger, {
          resource: 'nodes',
          slim: slimNode,
          list: (page) => kube.core.listNode(page),
        }),
      ),
    async stopAll() {
      await Promise.all([...started.values()].map((i) => i.stop()));
      started.clear();
    },
  };
}
