import { isIpamError } from '@netledger/ipam-core';
import type { SlimService } from '@netledger/ipam-core/load-balancer';
import type { ServiceEvent } from './lb-kube-writer.js';
import type { LbPorts, LbReconcileInput } from './reconcile-handle.js';
import { serviceId } from './service-id.js';
import { ingressIps } from './service-ingress.js';

/** A handle could not be judged safely yet (a Service the informer has not caught up with): retry later. */
export class LbRetryLater extends Error {
  override readonly name = 'LbRetryLater';
}

/** Releases a handle no Service holds any more, after re-reading the Services it names. */
export async function releaseHandle(
  input: LbReconcileInput,
  ports: LbPorts,
  out: {
    viewIps: readonly string[];
    notices: { svc: SlimService; event: ServiceEvent }[];
    released: string[];
  },
): Promise<void> {
  if (!input.write) return;
  const { handle, state } = input;
  let stored: string[] = [];
  try {
    stored = await ports.ipam.ipsByHandle(handle);
  } catch (e) {
    if (!isIpamError(e, 'DoesNotExist')) throw e;
    if (out.viewIps.length === 0) return;
  }
  const ips = [...new Set([...out.viewIps, ...stored])];
  // The final re-validation: the Services named by the allocations and the ones showing the
  // addresses, read from the API itself, must not map to this handle any more.
  const named = new Map<string, { namespace: string; name: string }>();
  for (const a of state.byHandle.get(handle)?.values() ?? [])
    named.set(`${a.namespace}/${a.service}`, { namespace: a.namespace, name: a.service });
  for (const c of input.candidates)
    named.set(serviceId(c), { namespace: c.metadata.namespace, name: c.metadata.name });
  const live: SlimService[] = [];
  for (const { namespace, name } of named.values()) {
    if (namespace === '' || name === '') continue;
    const svc = await ports.readService(namespace, name);
    if (svc && ports.ownerHandleOf(svc) === handle)
      throw new LbRetryLater(`service ${namespace}/${name} still holds handle ${handle}`);
    // Told why below, if netledger no longer manages it at all (not re-created, not re-keyed).
    if (svc && ports.ownerHandleOf(svc) === undefined) live.push(svc);
  }
  for (const c of input.candidates) {
    const shown = ingressIps(c).filter((ip) => ips.includes(ip));
    if (shown.length > 0) await ports.kube.removeIngress(c, shown);
  }
  try {
    await ports.ipam.releaseByHandle(handle);
  } catch (e) {
    if (!isIpamError(e, 'DoesNotExist')) throw e;
  }
  // Allocations the view shows but the handle object does not list (a handle lost or behind).
  const leftover = out.viewIps.filter((ip) => !stored.includes(ip));
  if (leftover.length > 0)
    await ports.ipam.releaseIps(leftover.map((address) => ({ address, handle })));
  if (ips.length === 0) return;
  out.released.push(...ips);
  for (let i = 0; i < ips.length; i++) ports.metrics?.released('service-gone');
  ports.logger.log('info', 'released LoadBalancer addresses', {
    handle,
    ips: ips.join(','),
    reason: 'no Service holds them',
    services: [...named.keys()].join(','),
  });
  // The Services that still exist (no longer of type LoadBalancer, another class) hear why.
  for (const svc of live)
    out.notices.push({
      svc,
      event: {
        type: 'Normal',
        reason: 'AddressReleased',
        message: `released ${ips.join(', ')}: the Service no longer gets LoadBalancer addresses from netledger`,
      },
    });
}
