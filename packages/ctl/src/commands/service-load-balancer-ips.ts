import { formatIp, parseIp } from '@netledger/accounting';
import {
  isManagedLoadBalancer,
  loadBalancerControllerOf,
  slimService,
} from '@netledger/ipam-core/load-balancer';
import type { AssignIpsMode } from '@netledger/ipam-core/load-balancer';
import { CtlError } from '../ctl-error.js';
import type { KubeReader } from './kube-reader.js';

/** The managed LoadBalancer Services' ingress addresses, each with its Service's name. */
export interface ServiceLoadBalancerIps {
  /** How many Services the controller manages. */
  readonly services: number;
  /** In the order listed; addresses canonical. */
  readonly ips: readonly { readonly ip: string; readonly owner: string }[];
}

/**
 * The LoadBalancer controller's settings in the KubeControllersConfiguration `default`: undefined
 * when it or its CRD is absent, or it has no `controllers.loadBalancer` (calicoctl's test).
 */
async function loadBalancerConfig(
  kube: KubeReader,
): Promise<{ readonly assignIps: AssignIpsMode } | undefined> {
  // In the group of Calico's CRDs the cluster has (v1 when the reader cannot tell).
  const group = (await kube.calicoApiGroup?.()) ?? 'crd.projectcalico.org/v1';
  const kcc = await kube.get(`/apis/${group}/kubecontrollersconfigurations/default`);
  if (!kcc) return undefined;
  try {
    return loadBalancerControllerOf(kcc.spec);
  } catch (e) {
    throw new CtlError(
      'InvalidInput',
      `KubeControllersConfiguration default: ${(e as Error).message}`,
    );
  }
}

/** Every Service, listed in pages of 500. */
async function* listServices(kube: KubeReader): AsyncGenerator<unknown> {
  let token = '';
  do {
    const page = await kube.get(
      `/api/v1/services?limit=500${token ? `&continue=${encodeURIComponent(token)}` : ''}`,
    );
    yield* (page?.items as unknown[] | undefined) ?? [];
    const meta = page?.metadata as { continue?: unknown } | undefined;
    token = typeof meta?.continue === 'string' ? meta.continue : '';
  } while (token !== '');
}

function canonicalIp(text: string): string | undefined {
  try {
    return formatIp(parseIp(text));
  } catch {
    return undefined;
  }
}

/**
 * calicoctl's service check: the `status.loadBalancer.ingress` addresses of the Services the
 * LoadBalancer controller manages (its `assignIPs`). Undefined when the
 * KubeControllersConfiguration `default` does not configure the controller; `InvalidInput` when
 * its configuration is malformed. Read-only.
 */
export async function readServiceLoadBalancerIps(
  kube: KubeReader,
): Promise<ServiceLoadBalancerIps | undefined> {
  const lb = await loadBalancerConfig(kube);
  if (!lb) return undefined;
  let services = 0;
  const ips: { ip: string; owner: string }[] = [];
  for await (const raw of listServices(kube)) {
    const svc = slimService(raw);
    if (!isManagedLoadBalancer(svc, lb.assignIps)) continue;
    services++;
    for (const e of svc.ingress) {
      const ip = canonicalIp(e.ip ?? '');
      if (ip !== undefined) ips.push({ ip, owner: svc.metadata.name });
    }
  }
  return { services, ips };
}
