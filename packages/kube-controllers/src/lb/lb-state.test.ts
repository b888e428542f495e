import { describe, expect, it } from 'vitest';
import type { AllocationBlock, KVPair } from '@netledger/ipam-core';
import { BlockBuilder, buildPool } from '@netledger/testkit';
import { LbState } from './lb-state.js';

const blockKv = (b: AllocationBlock, affinity: string): KVPair<'IPAMBlock'> => ({
  key: { kind: 'IPAMBlock', cidr: b.cidr },
  value: { ...b, affinity },
  revision: '1',
});

describe('LbState', () => {
  it('indexes the LoadBalancer allocations of virtual blocks by handle and address, and says which handles a change touched', () => {
    const state = new LbState();
    const pool = buildPool('lb', '10.0.0.0/24', { allowedUses: ['LoadBalancer'] });
    expect(
      state.apply({
        type: 'put',
        kv: { key: { kind: 'IPPool', name: 'lb' }, value: pool, revision: '1' },
      }),
    ).toEqual({
      handles: new Set(),
      pools: true,
    });
    expect(state.hasLoadBalancerPool()).toBe(true);
    const lb = { service: 'web', namespace: 'ns' };
    const first = new BlockBuilder('10.0.0.0/28')
      .allocate([1], 'lb-a', lb)
      .allocate([2], 'lb-b', { service: 'db', namespace: 'ns' })
      .allocate([3], 'not-lb', { pod: 'p', namespace: 'ns' })
      .build();
    const virtual = 'virtual:load-balancer';
    expect(state.apply({ type: 'put', kv: blockKv(first, virtual) }).handles).toEqual(
      new Set(['lb-a', 'lb-b']),
    );
    expect(state.ipsOf('lb-a')).toEqual(['10.0.0.1']);
    expect(state.byIp.get('10.0.0.2')).toMatchObject({
      handle: 'lb-b',
      service: 'db',
      namespace: 'ns',
    });
    expect(state.byIp.has('10.0.0.3')).toBe(false);
    // lb-b's address released (cooling down), lb-a unchanged.
    const built = new BlockBuilder('10.0.0.0/28').allocate([1], 'lb-a', lb).build();
    const second: AllocationBlock = {
      ...built,
      attributes: [...built.attributes, { releasedAt: '2026-01-01T00:00:00Z' }],
      allocations: built.allocations.map((a, o) => (o === 2 ? built.attributes.length : a)),
      unallocated: built.unallocated.filter((o) => o !== 2),
    };
    expect(state.apply({ type: 'put', kv: blockKv(second, virtual) }).handles).toEqual(
      new Set(['lb-b']),
    );
    expect(state.byHandle.has('lb-b')).toBe(false);
    expect(
      state.apply({ type: 'delete', key: { kind: 'IPAMBlock', cidr: '10.0.0.0/28' } }).handles,
    ).toEqual(new Set(['lb-a']));
    expect(state.byIp.size).toBe(0);
    expect(state.blocks.size).toBe(0);
  });

  it('ignores host-affine blocks', () => {
    const state = new LbState();
    const b = new BlockBuilder('10.1.0.0/28').allocate([1], 'lb-x', { service: 's' }).build();
    expect(state.apply({ type: 'put', kv: blockKv(b, 'host:n1') }).handles).toEqual(new Set());
    expect(state.blocks.size).toBe(0);
  });
});
