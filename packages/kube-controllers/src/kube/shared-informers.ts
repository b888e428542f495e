import type { KubeApis } from './kube-client.js';
import type { Logger } from '../logger.js';
import type { SharedInformers } from '../manager/controller.js';
import type { ListPage, Slim, SlimInformer } from './slim-informer.js';
import { startSlimInformer } from './slim-informer.js';
import { slimNode, slimPod } from './slim-pod.js';

/** Page size of informer lists: bounds the memory a list of 10,000 pods takes at once. */
export const LIST_PAGE_SIZE = 500;

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
        startSlimInformer({
          config: kube.config,
          path: '/api/v1/pods',
          name: 'pods',
          logger,
          slim: slimPod,
          listPage: async (token) =>
            (await kube.core.listPodForAllNamespaces({
              limit: LIST_PAGE_SIZE,
              ...(token && { _continue: token }),
            })) as ListPage,
        }),
      ),
    nodes: () =>
      get('nodes', () =>
        startSlimInformer({
          config: kube.config,
          path: '/api/v1/nodes',
          name: 'nodes',
          logger,
          slim: slimNode,
          listPage: async (token) =>
            (await kube.core.listNode({
              limit: LIST_PAGE_SIZE,
              ...(token && { _continue: token }),
            })) as ListPage,
        }),
      ),
    async stopAll() {
      await Promise.all([...started.values()].map((i) => i.stop()));
      started.clear();
    },
  };
}
