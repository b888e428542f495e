import type { SlimService } from './slim-service.js';
import { SERVICE_ANNOTATIONS } from './slim-service.js';

/** Which LoadBalancer Services get addresses (Calico's `assignIPs`). */
export type AssignIpsMode = 'AllServices' | 'RequestedServicesOnly';

/** The `spec.loadBalancerClass` that names this controller (any other class is someone else's). */
export const LOAD_BALANCER_CLASS = 'netledger.io/load-balancer';

/**
 * Whether the controller gives `svc` addresses (Calico's `IsCalicoManagedLoadBalancer`): type
 * LoadBalancer, `loadBalancerClass` unset or {@link LOAD_BALANCER_CLASS}, and, with
 * `RequestedServicesOnly`, the class set to ours or an address, pool or sharing-key request
 * (annotations or `spec.loadBalancerIP`). `netledgerctl ipam check` counts the same Services.
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

/**
 * The LoadBalancer controller's settings in a KubeControllersConfiguration spec
 * (`controllers.loadBalancer`): undefined when absent (Calico: the controller is off), else its
 * `assignIPs` (default `AllServices`). Throws a `TypeError` naming the field for a bad value.
 */
export function loadBalancerControllerOf(
  spec: unknown,
): { readonly assignIps: AssignIpsMode } | undefined {
  const controllers = (spec as { controllers?: unknown } | null)?.controllers;
  const lb =
    controllers !== null && typeof controllers === 'object'
      ? (controllers as { loadBalancer?: unknown }).loadBalancer
      : undefined;
  if (lb === undefined || lb === null) return undefined;
  if (typeof lb !== 'object')
    throw new TypeError('spec.controllers.loadBalancer must be an object');
  const mode = (lb as { assignIPs?: unknown }).assignIPs;
  if (mode === undefined || mode === null || mode === '') return { assignIps: 'AllServices' };
  if (mode !== 'AllServices' && mode !== 'RequestedServicesOnly')
    throw new TypeError(
      `spec.controllers.loadBalancer.assignIPs must be AllServices or RequestedServicesOnly, got ${JSON.stringify(mode)}`,
    );
  return { assignIps: mode };
}
