// The LoadBalancer controller's Kubernetes side: the Service informer, status writes (the status
// subresource, by JSON patch guarded by the Service's uid) and Events on Services.
import type { KubeApis } from '../kube/kube-client.js';
import { isNotFound } from '../kube/kube-client.js';
import type { Logger } from '../logger.js';
import { startCoreInformer } from '../kube/core-informer.js';
import type { SlimInformer } from '../kube/slim-informer.js';
import type { IngressEntry, SlimService } from '@netledger/ipam-core/load-balancer';
import { slimService } from '@netledger/ipam-core/load-balancer';

/** Starts the informer over every Service, reduced to {@link SlimService}s. */
export function startServiceInformer(kube: KubeApis, logger: Logger): SlimInformer<SlimService> {
  return startCoreInformer(kube, logger, {
    resource: 'services',
    slim: slimService,
    list: (page) => kube.core.listServiceForAllNamespaces(page),
  });
}

/** An Event about a Service. */
export interface ServiceEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

/** What the controller writes to Kubernetes (a port: tests record it). */
export interface LbKubeWriter {
  /** Sets the Service's `status.loadBalancer.ingress` to `ingress` (whatever it held). */
  setIngress(svc: SlimService, ingress: readonly IngressEntry[]): Promise<void>;
  /** Removes the entries of these addresses from the Service's ingress, leaving others' entries. */
  removeIngress(svc: SlimService, ips: readonly string[]): Promise<void>;
  recordEvent(svc: SlimService, event: ServiceEvent): Promise<void>;
}

/**
 * Writes through the API: the status subresource by JSON patch, each patch first testing the
 * Service's uid (a Service re-created under the same name is never written with its
 * predecessor's addresses) and, for removals, each removed entry's address (an entry that moved
 * fails the patch instead of removing the wrong one); Events as core v1 Events from
 * `netledger-kube-controllers`. A failed write rejects; the caller retries.
 */
export function createLbKubeWriter(kube: KubeApis): LbKubeWriter {
  const patch = (svc: SlimService, ops: object[]) =>
    kube.core.patchNamespacedServiceStatus({
      name: svc.metadata.name,
      namespace: svc.metadata.namespace,
      body: [{ op: 'test', path: '/metadata/uid', value: svc.metadata.uid }, ...ops],
    });
  return {
    async setIngress(svc, ingress) {
      await patch(svc, [
        {
          op: 'add',
          path: '/status/loadBalancer',
          value: ingress.length > 0 ? { ingress } : {},
        },
      ]);
    },
    async removeIngress(svc, ips) {
      const ops: object[] = [];
      svc.ingress.forEach((e, i) => {
        if (e.ip === undefined || !ips.includes(e.ip)) return;
        ops.unshift(
          { op: 'test', path: `/status/loadBalancer/ingress/${i}/ip`, value: e.ip },
          { op: 'remove', path: `/status/loadBalancer/ingress/${i}` },
        );
      });
      // Tests first, then removals from the highest index down, so indexes stay valid.
      const tests = ops.filter((o) => (o as { op: string }).op === 'test');
      const removals = ops.filter((o) => (o as { op: string }).op === 'remove');
      if (removals.length > 0) await patch(svc, [...tests, ...removals]);
    },
    async recordEvent(svc, event) {
      const at = new Date();
      await kube.core.createNamespacedEvent({
        namespace: svc.metadata.namespace,
        body: {
          metadata: { generateName: `${svc.metadata.name}.`, namespace: svc.metadata.namespace },
          involvedObject: {
            apiVersion: 'v1',
            kind: 'Service',
            name: svc.metadata.name,
            namespace: svc.metadata.namespace,
            uid: svc.metadata.uid,
            ...(svc.metadata.resourceVersion !== undefined && {
              resourceVersion: svc.metadata.resourceVersion,
            }),
          },
          type: event.type,
          reason: event.reason,
          message: event.message,
          source: { component: 'netledger-kube-controllers' },
          firstTimestamp: at,
          lastTimestamp: at,
          count: 1,
        },
      });
    },
  };
}

/** Reads a Service straight from the API (the re-validation); undefined when it is gone. */
export async function readServiceLive(
  kube: KubeApis,
  namespace: string,
  name: string,
): Promise<SlimService | undefined> {
  try {
    return slimService(await kube.core.readNamespacedService({ name, namespace }));
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}
