import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { AllocationBlock, KVPair } from '@netledger/ipam-core';
import { applyStoreChange } from './apply-store-change.js';
import { GcState } from './gc-state.js';
import { createIpamGcMetrics } from './ipam-gc-metrics.js';
import { computeIpamMetrics } from './ipam-metrics-model.js';

function block(
  cidr: string,
  affinity: string | undefined,
  owners: { o: number; node?: string; cooling?: boolean }[],
): KVPair<'IPAMBlock'> {
  const size = 2 ** (32 - Number(cidr.split('/')[1]));
  const allocations: (number | null)[] = Array.from({ length: size }, () => null);
  const attributes: AllocationBlock['attributes'][number][] = [];
  for (const { o, node, cooling } of owners) {
    allocations[o] =
      attributes.push(
        cooling
          ? { releasedAt: '2026-01-01T00:00:00Z' }
          : {
              handleId: `h${cidr}${o}`,
              activeOwnerAttrs: node ? { node, namespace: 'ns', pod: `p${o}` } : {},
            },
      ) - 1;
  }
  const value: AllocationBlock = {
    cidr,
    ...(affinity && { affinity }),
    allocations,
    unallocated: allocations.flatMap((a, i) => (a === null ? [i] : [])),
    attributes,
    sequenceNumber: 1n,
    sequenceNumberForAllocation: {},
    deleted: false,
  };
  return { key: { kind: 'IPAMBlock', cidr }, value, revision: '1' };
}

function stateWith(): GcState {
  const s = new GcState();
  const put = (kv: KVPair) => applyStoreChange(s, { type: 'put', kv });
  put({
    key: { kind: 'IPPool', name: 'p1' },
    value: { metadata: { name: 'p1' }, spec: { cidr: '10.0.0.0/24', blockSize: 28 } },
    revision: '1',
  });
  put({
    key: { kind: 'IPReservation', name: 'r' },
    value: { metadata: { name: 'r' }, spec: { reservedCIDRs: ['10.0.0.252/30'] } },
    revision: '1',
  });
  put({ key: { kind: 'Node', name: 'a' }, value: { metadata: { name: 'a' } }, revision: '1' });
  put({ key: { kind: 'Node', name: 'c' }, value: { metadata: { name: 'c' } }, revision: '1' });
  put(
    block('10.0.0.0/28', 'host:a', [
      { o: 0, node: 'a' },
      { o: 1, node: 'a' },
      { o: 2, node: 'b' },
      { o: 3, cooling: true },
      { o: 4 },
    ]),
  );
  put(block('10.0.0.16/28', undefined, [{ o: 0, node: 'b' }]));
  put(block('10.9.0.0/28', 'host:b', [{ o: 0, node: 'b' }]));
  return s;
}

describe('computeIpamMetrics', () => {
  it("recomputes Calico's gauges from the state", () => {
    const s = stateWith();
    const t = s.allocations.get('h10.0.0.0/281/10.0.0.1')!;
    s.recordVerdict(t, {
      leakedAtMs: 1,
      confirmedLeak: false,
      reason: 'within-grace-period',
      observedPodUid: null,
    });
    const m = computeIpamMetrics(s);
    const p1 = m.pools.find((p) => p.name === 'p1')!;
    expect(Object.fromEntries(p1.inUse)).toEqual({ a: 2, b: 2, c: 0, unknown_node: 1 });
    expect(Object.fromEntries(p1.borrowed)).toEqual({ a: 0, b: 2, c: 0 });
    expect(Object.fromEntries(p1.blocks)).toEqual({ a: 1, no_affinity: 1 });
    expect(Object.fromEntries(p1.gcCandidates)).toEqual({ a: 1, c: 0 });
    // 256 - 4 reserved - (16 - 11 free) - (16 - 15 free) in blocks... available = unallocated unreserved + outside blocks.
    expect(p1).toMatchObject({
      size: 256,
      reserved: 4,
      freeBlocks: 14,
      available: 11 + 15 + (256 - 32 - 4),
    });
    const orphan = m.pools.find((p) => p.name === 'no_ippool')!;
    expect(Object.fromEntries(orphan.inUse)).toEqual({ b: 1 }); // not zero-seeded
    expect(orphan.size).toBeUndefined();
    expect(Object.fromEntries(m.allocationsPerNode)).toEqual({ a: 2, b: 3 });
    expect(Object.fromEntries(m.borrowedPerNode)).toEqual({ b: 2 });
    expect(Object.fromEntries(m.blocksPerNode)).toEqual({ a: 1, b: 1, no_affinity: 1 });
  });
});

describe('createIpamGcMetrics', () => {
  it("exposes Calico's names and help strings and leaves no stale series for deleted pools or nodes", async () => {
    const registry = new Registry();
    const metrics = createIpamGcMetrics(registry);
    const s = stateWith();
    metrics.reclaimed('p1', 'a');
    metrics.reclaimed('p1', 'c');
    metrics.update(computeIpamMetrics(s));
    let text = await registry.metrics();
    expect(text).toContain(
      '# HELP ipam_allocations_in_use IPs currently allocated in IPAM to a workload or tunnel endpoint.',
    );
    expect(text).toContain('# HELP ipam_ippool_size Total number of addresses in the IP Pool');
    expect(text).toContain('ipam_allocations_in_use{ippool="p1",node="a"} 2');
    expect(text).toContain('ipam_allocations_gc_reclamations{ippool="p1",node="c"} 1');
    expect(text).toContain('ipam_ippool_size{ippool="p1"} 256');
    expect(text).toContain('ipam_allocations_per_node{node="b"} 3');
    metrics.forgetNode('c');
    applyStoreChange(s, { type: 'delete', key: { kind: 'Node', name: 'c' } });
    metrics.update(computeIpamMetrics(s));
    text = await registry.metrics();
    expect(text).not.toContain('node="c"');
    applyStoreChange(s, { type: 'delete', key: { kind: 'IPPool', name: 'p1' } });
    metrics.update(computeIpamMetrics(s));
    text = await registry.metrics();
    expect(text).not.toContain('ippool="p1"');
    expect(text).toContain('ipam_allocations_in_use{ippool="no_ippool",node="a"} 2');
  });
});
