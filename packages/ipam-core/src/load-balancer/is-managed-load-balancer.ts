import type { SlimService } from './slim-service.js';
import { SERVICE_ANNOTATIONS } from './slim-service.js';

/** Which LoadBalancer Services get addresses (Calico's `assignIPs`). */
export type AssignIpsMode = 'AllServices' | 'RequestedServicesOnly';

/** The `spec.loadBalancerClass` that names this controller (any other class is someone else's). */
export const LOAD_BALANCER_CLASS = 'netledger.io/load-balancer';

/**
 * Whether the LoadBalancer controller gives `svc` addresses (Calico's
 * `IsCalicoManagedLoadBalancer`): type LoadBalancer, `loadBalancerClass` unset or
 * {@link LOAD_BALANCER_CLASS}, and, with `RequestedServicesOnly`, the class set to ours or an
 * address, pool or sharing-key request (annotations or `spec.loadBalancerIP`). The controller
 * and `netledgerctl ipam check` both count Services by this rule.
 */
export function isManagedLoadBalancer(svc: SlimService, mode: AssignIpsMode): boolean {
  if (svc.type !== 'LoadBalancer') return false;
  if (svc.loadBalancerClass !== undefined && svc.loadBalancerClass !== LOAD_BALANCER_CLASS)
    return false;
  if (mode === 'AllServices' || svc.loadBalancerClass === LOAD_BALANCER_CLASS) return true;
  const a = svc.metadata.annotations;
  return (
    svc.loadBalancerIp !== '' || Object.values(SERVICE_ANNOTATIONS).some((k) => (a[k] ?? '') !== '')
  );
}
