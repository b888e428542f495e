import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AllocationAttribute, AllocationBlock, KVPair } from '@netledger/ipam-core';
import { applyStoreChange, buildGcState } from './apply-store-change.js';
import { GcState, NO_POOL } from './gc-state.js';
import { describeState, findStateProblems } from './state-consistency.js';

const CIDRS = ['10.0.0.0/28', '10.0.0.16/28', '10.0.0.32/28', '10.0.1.0/28'];
const NODES = ['a', 'b', 'c'];

/** A random but well-formed block: ordinals point at attributes; some cool down. */
const blockArb = fc
  .record({
    cidr: fc.constantFrom(...CIDRS),
    affinity: fc.option(
      fc.constantFrom(...NODES.map((n) => `host:${n}`), 'virtual:load-balancer'),
      { nil: undefined },
    ),
    seq: fc.bigInt({ min: 1n, max: 5n }),
    owners: fc.array(
      fc.record({
        ordinal: fc.integer({ min: 0, max: 15 }),
        handle: fc.constantFrom('h1', 'h2', 'h3', 'windows-reserved-ipam-handle'),
        node: fc.option(fc.constantFrom(...NODES), { nil: undefined }),
        cooling: fc.boolean(),
      }),
      { maxLength: 8 },
    ),
  })
  .map(({ cidr, affinity, seq, owners }): AllocationBlock => {
    const allocations: (number | null)[] = Array.from({ length: 16 }, () => null);
    const attributes: AllocationAttribute[] = [];
    const seqs: Record<string, bigint> = {};
    for (const o of owners) {
      if (allocations[o.ordinal] !== null) continue;
      allocations[o.ordinal] =
        attributes.push(
          o.cooling
            ? { releasedAt: '2026-01-01T00:00:00Z' }
            : {
                handleId: o.handle,
                activeOwnerAttrs: {
                  ...(o.node && { node: o.node }),
                  namespace: 'ns',
                  pod: o.handle,
                },
              },
        ) - 1;
      seqs[String(o.ordinal)] = seq;
    }
    return {
      cidr,
      ...(affinity && { affinity }),
      allocations,
      unallocated: allocations.flatMap((a, i) => (a === null ? [i] : [])),
      attributes,
      sequenceNumber: seq,
      sequenceNumberForAllocation: seqs,
      deleted: false,
    };
  });

const eventArb = fc.oneof(
  blockArb.map((b) => ({ type: 'put' as const, block: b })),
  fc.constantFrom(...CIDRS).map((cidr) => ({ type: 'delete' as const, cidr })),
  fc.constantFrom('p1', 'p2').map((name) => ({ type: 'pool' as const, name })),
  fc.constantFrom('p1', 'p2').map((name) => ({ type: 'unpool' as const, name })),
);

const kv = (b: AllocationBlock, revision: number): KVPair<'IPAMBlock'> => ({
  key: { kind: 'IPAMBlock', cidr: b.cidr },
  value: b,
  revision: String(revision),
});

describe('GcState', () => {
  it('keeps every map consistent, and equal to a fresh rebuild, under any sequence of changes', () => {
    fc.assert(
      fc.property(fc.array(eventArb, { maxLength: 40 }), (events) => {
        const state = new GcState();
        const store = new Map<string, KVPair>();
        let rev = 0;
        for (const e of events) {
          rev++;
          if (e.type === 'put') {
            store.set(e.block.cidr, kv(e.block, rev));
            applyStoreChange(state, { type: 'put', kv: kv(e.block, rev) });
          } else if (e.type === 'delete') {
            store.delete(e.cidr);
            applyStoreChange(state, { type: 'delete', key: { kind: 'IPAMBlock', cidr: e.cidr } });
          } else if (e.type === 'pool') {
            const pool: KVPair<'IPPool'> = {
              key: { kind: 'IPPool', name: e.name },
              value: {
                metadata: { name: e.name },
                spec: { cidr: e.name === 'p1' ? '10.0.0.0/24' : '10.0.0.0/16', blockSize: 28 },
              },
              revision: String(rev),
            };
            store.set(`pool:${e.name}`, pool);
            applyStoreChange(state, { type: 'put', kv: pool });
          } else {
            store.delete(`pool:${e.name}`);
            applyStoreChange(state, { type: 'delete', key: { kind: 'IPPool', name: e.name } });
          }
          expect(findStateProblems(state)).toEqual([]);
        }
        expect(describeState(state)).toEqual(describeState(buildGcState(store.values())));
      }),
      { numRuns: 300 },
    );
  });

  it('re-validates an allocation whose sequence number changed (re-allocated) and keeps one that did not', () => {
    const state = new GcState();
    const block = (seq: bigint): AllocationBlock => ({
      cidr: '10.0.0.0/30',
      affinity: 'host:a',
      allocations: [0, null, null, null],
      unallocated: [1, 2, 3],
      attributes: [{ handleId: 'h', activeOwnerAttrs: { node: 'a', namespace: 'ns', pod: 'p' } }],
      sequenceNumber: seq,
      sequenceNumberForAllocation: { '0': seq },
      deleted: false,
    });
    state.applyBlock(kv(block(1n), 1));
    const t = state.allocations.get('h/10.0.0.0')!;
    state.recordVerdict(t, {
      leakedAtMs: 5,
      confirmedLeak: true,
      reason: 'grace-period-elapsed',
      observedPodUid: null,
    });
    state.applyBlock(kv(block(1n), 2));
    expect(state.confirmedLeaks.has(t.id)).toBe(true);
    state.applyBlock(kv(block(2n), 3));
    expect(t).toMatchObject({ sequenceNumber: 2n, leakedAtMs: null, confirmedLeak: false });
    expect(state.confirmedLeaks.size).toBe(0);
    expect(findStateProblems(state)).toEqual([]);
  });

  it('attributes blocks to pools, and to no_ippool when none covers them', () => {
    const state = new GcState();
    state.applyBlock(
      kv(
        {
          cidr: '10.9.0.0/30',
          allocations: [null, null, null, null],
          unallocated: [0, 1, 2, 3],
          attributes: [],
          sequenceNumber: 1n,
          sequenceNumberForAllocation: {},
          deleted: false,
        },
        1,
      ),
    );
    expect(state.blocks.get('10.9.0.0/30')?.pool).toBe(NO_POOL);
    state.applyPool({ metadata: { name: 'p' }, spec: { cidr: '10.9.0.0/16' } });
    expect(state.blocks.get('10.9.0.0/30')?.pool).toBe('p');
    state.applyPool({
      metadata: { name: 'p', deletionTimestamp: '2026-01-01T00:00:00Z' },
      spec: { cidr: '10.9.0.0/16' },
    });
    expect(state.blocks.get('10.9.0.0/30')?.pool).toBe(NO_POOL);
    expect(findStateProblems(state)).toEqual([]);
  });

  it('findStateProblems reports a map out of step', () => {
    const state = new GcState();
    state.applyBlock(
      kv(
        {
          cidr: '10.0.0.0/30',
          affinity: 'host:a',
          allocations: [null, null, null, null],
          unallocated: [0, 1, 2, 3],
          attributes: [],
          sequenceNumber: 1n,
          sequenceNumberForAllocation: {},
          deleted: false,
        },
        1,
      ),
    );
    state.emptySince.set('10.0.0.4/30', 1);
    state.blocksByNode.set('ghost', new Set());
    expect(findStateProblems(state)).toEqual([
      'blocksByNode[ghost] is an empty entry',
      'emptySince holds 10.0.0.4/30, not an empty block',
    ]);
  });
});
