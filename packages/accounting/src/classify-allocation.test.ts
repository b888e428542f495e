import { describe, expect, it } from 'vitest';
import type { AllocationFacts } from './allocation-facts.js';
import type { AllocationClassification } from './classify-allocation.js';
import { classifyAllocation } from './classify-allocation.js';
import { MINUTE, NOW, facts } from './test-allocation-facts.js';

const gone = { pod: { outcome: 'notFound' } } as const;
const nodeGone = { kubernetesNodeExists: false, knode: '' };
const tunnel = { node: 'node-a', type: 'ipipTunnelAddress' };
const vm = { node: 'node-a', namespace: 'ns', pod: 'virt-launcher-1', 'vmi-name': 'vm-1' };
const seen = (minutesAgo: number) => ({ leakedAtMs: NOW - minutesAgo * MINUTE });

type Row = [string, AllocationFacts, Partial<AllocationClassification>];

// Every row of Calico's checkAllocations table (reference §A.6), in order, plus markLeak/markValid.
describe('classifyAllocation', () => {
  it.each<Row>([
    // 1. Windows-reserved: skipped whatever else holds.
    [
      'windows-reserved is skipped',
      facts({ handle: 'windows-reserved-ipam-handle', attrs: {}, ...nodeGone }),
      { verdict: 'valid', reason: 'windows-reserved', holdsNode: false },
    ],
    [
      'windows-reserved, any case',
      facts({ handle: 'Windows-Reserved-IPAM-Handle', ...gone, ...nodeGone }),
      { verdict: 'valid', reason: 'windows-reserved' },
    ],
    // 2. Neither pod nor tunnel: unknown source, blocks node cleanup.
    [
      'no attributes',
      facts({ attrs: {}, ...nodeGone }),
      { verdict: 'valid', reason: 'unknown-source', holdsNode: true },
    ],
    [
      'LoadBalancer address',
      facts({ attrs: { type: 'LoadBalancer' }, ...nodeGone }),
      { verdict: 'valid', reason: 'unknown-source', holdsNode: true },
    ],
    [
      'pod attr without namespace',
      facts({ attrs: { node: 'node-a', pod: 'p' }, ...gone }),
      { verdict: 'valid', reason: 'unknown-source', holdsNode: true },
    ],
    // 3. Tunnel: deferred; a leak only when its node is gone and nothing else holds the node.
    [
      'tunnel on a live node',
      facts({ attrs: tunnel, ...gone }),
      { verdict: 'valid', reason: 'tunnel-node-exists', holdsNode: false },
    ],
    [
      'tunnel on a deleted node still in use',
      facts({ attrs: tunnel, ...nodeGone, nodeReleasable: false }),
      { verdict: 'valid', reason: 'tunnel-node-in-use', holdsNode: false },
    ],
    [
      'tunnel, nodeReleasable defaults to false',
      facts({ attrs: tunnel, ...nodeGone }),
      { verdict: 'valid', reason: 'tunnel-node-in-use' },
    ],
    [
      'tunnel on a deleted, releasable node',
      facts({ attrs: tunnel, ...nodeGone, nodeReleasable: true }),
      { verdict: 'leak', reason: 'tunnel-node-deleted', confirmedLeak: true, holdsNode: false },
    ],
    // 4. Owner valid: markValid, blocks node cleanup.
    [
      'live pod',
      facts(),
      { verdict: 'valid', reason: 'owner-valid', holdsNode: true, leakedAtMs: null },
    ],
    [
      'live pod on a deleted node holds the node',
      facts({ kubernetesNodeExists: false }),
      { verdict: 'valid', reason: 'owner-valid', holdsNode: true },
    ],
    [
      'candidate becomes valid again',
      facts(seen(3)),
      { verdict: 'valid', leakedAtMs: null, confirmedLeak: false },
    ],
    [
      'confirmed leak is resurrected',
      facts({ ...seen(30), confirmedLeak: true }),
      { verdict: 'valid', leakedAtMs: null, confirmedLeak: false },
    ],
    [
      'pod lookup error counts as valid',
      facts({ pod: { outcome: 'error' }, ...nodeGone }),
      { verdict: 'valid', reason: 'owner-valid', holdsNode: true },
    ],
    // 5. Kubernetes node gone: confirmed at once, no grace, even with GC timers unset.
    [
      'pod gone on a deleted node',
      facts({ ...gone, ...nodeGone }),
      { verdict: 'leak', reason: 'node-deleted', holdsNode: false, leakedAtMs: null },
    ],
    [
      'node deleted, grace unset',
      facts({ ...gone, ...nodeGone, leakGracePeriodMs: null }),
      { verdict: 'leak', reason: 'node-deleted' },
    ],
    [
      'node deleted keeps the candidate time',
      facts({ ...gone, ...nodeGone, ...seen(2) }),
      { verdict: 'leak', leakedAtMs: NOW - 2 * MINUTE },
    ],
    // 6. VM: grace is max(5 min, leakGracePeriod).
    [
      'VM first seen',
      facts({ attrs: vm, vm: 'notFound' }),
      { verdict: 'candidate', reason: 'within-grace-period', leakedAtMs: NOW },
    ],
    [
      'VM within 15 min grace',
      facts({ attrs: vm, vm: 'notFound', ...seen(14) }),
      { verdict: 'candidate' },
    ],
    [
      'VM after 15 min grace',
      facts({ attrs: vm, vm: 'notFound', ...seen(16) }),
      { verdict: 'leak', reason: 'grace-period-elapsed' },
    ],
    [
      'VM, 1 min grace raised to 5',
      facts({ attrs: vm, vm: 'notFound', leakGracePeriodMs: MINUTE, ...seen(4) }),
      { verdict: 'candidate' },
    ],
    [
      'VM, 1 min grace, after 5',
      facts({ attrs: vm, vm: 'notFound', leakGracePeriodMs: MINUTE, ...seen(6) }),
      { verdict: 'leak' },
    ],
    [
      'VM, grace unset still uses 5 min',
      facts({ attrs: vm, vm: 'notFound', leakGracePeriodMs: null, ...seen(6) }),
      { verdict: 'leak' },
    ],
    [
      'VM, grace 0 still uses 5 min',
      facts({ attrs: vm, vm: 'notFound', leakGracePeriodMs: 0, ...seen(6) }),
      { verdict: 'leak' },
    ],
    [
      'VM on a deleted node: no grace',
      facts({ attrs: vm, vm: 'notFound', ...nodeGone }),
      { verdict: 'leak', reason: 'node-deleted' },
    ],
    // 7. leakGracePeriod set: candidate, then confirmed strictly after the grace period.
    [
      'pod gone, first seen',
      facts(gone),
      { verdict: 'candidate', reason: 'within-grace-period', leakedAtMs: NOW, holdsNode: false },
    ],
    [
      'pod gone, exactly at grace',
      facts({ ...gone, ...seen(15) }),
      { verdict: 'candidate', leakedAtMs: NOW - 15 * MINUTE },
    ],
    [
      'pod gone, past grace',
      facts({ ...gone, leakedAtMs: NOW - 15 * MINUTE - 1 }),
      { verdict: 'leak', reason: 'grace-period-elapsed', confirmedLeak: true },
    ],
    [
      'pod evicted, past grace',
      facts({
        pod: {
          outcome: 'found',
          pod: {
            nodeName: 'node-a',
            podIp: 'x',
            podIps: ['x'],
            phase: 'Failed',
            reason: 'Evicted',
            endpointIpNetworks: [],
          },
        },
        ...seen(20),
      }),
      { verdict: 'leak' },
    ],
    [
      'grace 0: candidate only, forever',
      facts({ ...gone, leakGracePeriodMs: 0, ...seen(60 * 24) }),
      { verdict: 'candidate', reason: 'gc-disabled', confirmedLeak: false },
    ],
    [
      'already confirmed stays confirmed',
      facts({ ...gone, leakGracePeriodMs: 0, ...seen(1), confirmedLeak: true }),
      { verdict: 'leak', confirmedLeak: true },
    ],
    // 8. leakGracePeriod unset: pods on live nodes are not even marked.
    [
      'grace unset: not marked',
      facts({ ...gone, leakGracePeriodMs: null }),
      { verdict: 'valid', reason: 'grace-period-unset', leakedAtMs: null, holdsNode: false },
    ],
    [
      'grace unset keeps an earlier mark',
      facts({ ...gone, leakGracePeriodMs: null, ...seen(1) }),
      { verdict: 'candidate', reason: 'grace-period-unset' },
    ],
  ])('%s', (_name, input, expected) => {
    expect(classifyAllocation(input)).toMatchObject(expected);
  });

  it('reports the truth check that decided a pod allocation', () => {
    expect(classifyAllocation(facts(gone)).validity).toEqual({
      valid: false,
      reason: 'pod-not-found',
    });
    expect(classifyAllocation(facts({ attrs: tunnel })).validity).toBeUndefined();
  });

  it('walks a leak from first sight to confirmation', () => {
    let state = { leakedAtMs: null as number | null, confirmedLeak: false };
    const verdicts: string[] = [];
    for (const minute of [0, 5, 10, 15, 16]) {
      const r = classifyAllocation(facts({ ...gone, ...state, nowMs: NOW + minute * MINUTE }));
      state = { leakedAtMs: r.leakedAtMs, confirmedLeak: r.confirmedLeak };
      verdicts.push(r.verdict);
    }
    expect(verdicts).toEqual(['candidate', 'candidate', 'candidate', 'candidate', 'leak']);
    expect(state.leakedAtMs).toBe(NOW);
  });
});
