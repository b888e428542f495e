// Test-only builder for AllocationFacts: a live pod allocation on a live node, valid by default.
import type { AllocationFacts, PodFacts } from './allocation-facts.js';
import { parseIp } from './parse-ip.js';

export const MINUTE = 60_000;
export const NOW = 1_767_225_600_000;

const livePod: PodFacts = {
  nodeName: 'node-a',
  podIp: '10.0.0.5',
  podIps: ['10.0.0.5'],
  phase: 'Running',
  reason: '',
  endpointIpNetworks: ['10.0.0.5/32'],
};

/** Facts for `10.0.0.5` held by pod `ns/pod-1` on node-a, with overrides. */
export function facts(over: Partial<AllocationFacts> = {}): AllocationFacts {
  return {
    ip: parseIp('10.0.0.5'),
    handle: 'k8s-pod-network.abc123',
    attrs: { node: 'node-a', namespace: 'ns', pod: 'pod-1' },
    knode: 'node-a',
    kubernetesNodeExists: true,
    pod: { outcome: 'found', pod: livePod },
    leakGracePeriodMs: 15 * MINUTE,
    nowMs: NOW,
    leakedAtMs: null,
    confirmedLeak: false,
    ...over,
  };
}

/** The same facts with the pod lookup replaced by a found pod with the given overrides. */
export function withPod(pod: Partial<PodFacts>, over: Partial<AllocationFacts> = {}) {
  return facts({ pod: { outcome: 'found', pod: { ...livePod, ...pod } }, ...over });
}
