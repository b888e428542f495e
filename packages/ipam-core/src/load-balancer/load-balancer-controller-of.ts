import type { AssignIpsMode } from './is-managed-load-balancer.js';

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
