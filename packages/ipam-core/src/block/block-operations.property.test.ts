import { createAddressFilter, hostCidr } from '@netledger/accounting';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isIpamError } from '../errors.js';
import type { AllocationBlock } from '../model/block.js';
import { assignInBlock } from './block-assign.js';
import { autoAssignFromBlock } from './block-auto-assign.js';
import { blockGeometry, ordinalToAddress, ordinalToIp } from './block-geometry.js';
import { findBlockProblems } from './block-problems.js';
import { releaseByHandleFromBlock, releaseFromBlock, toRfc3339Seconds } from './block-release.js';
import { garbageCollectBlock } from './garbage-collect.js';
import { newBlock } from './new-block.js';
import { deepFreeze } from './test-block-builder.js';

/** Random operations on one small block, checked against a model after every step. */
type Op =
  | { t: 'advance'; ms: number }
  | { t: 'bump' }
  | { t: 'auto'; num: number; handle?: string; pod?: string; reserved: number[] }
  | { t: 'assign'; ordinal: number; handle?: string }
  | {
      t: 'release';
      ordinals: number[];
      handle: 'none' | 'right' | 'wrong';
      seq: 'none' | 'right' | 'wrong';
    }
  | { t: 'releaseByHandle'; handle: string; seqOf?: number }
  | { t: 'gc' };

const SIZE = 16;
const ordinal = fc.integer({ min: 0, max: SIZE - 1 });
const handle = fc.option(fc.constantFrom('a', 'b', 'c'), { nil: undefined });
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    t: fc.constant('advance' as const),
    // Whole seconds often, so cooldown boundaries are hit exactly.
    ms: fc.oneof(
      fc.integer({ min: 0, max: 90_000 }),
      fc.constantFrom(1_000, 29_000, 30_000, 60_000),
    ),
  }),
  fc.record({ t: fc.constant('bump' as const) }),
  fc.record({
    t: fc.constant('auto' as const),
    num: fc.integer({ min: 0, max: 6 }),
    handle,
    pod: fc.option(fc.constantFrom('p1', 'p2'), { nil: undefined }),
    reserved: fc.uniqueArray(ordinal, { maxLength: 4 }),
  }),
  fc.record({ t: fc.constant('assign' as const), ordinal, handle }),
  fc.record({
    t: fc.constant('release' as const),
    ordinals: fc.array(ordinal, { minLength: 1, maxLength: 5 }),
    handle: fc.constantFrom('none' as const, 'right' as const, 'wrong' as const),
    seq: fc.constantFrom('none' as const, 'right' as const, 'wrong' as const),
  }),
  fc.record({
    t: fc.constant('releaseByHandle' as const),
    handle: fc.constantFrom('a', 'b', 'c'),
    seqOf: fc.option(ordinal, { nil: undefined }),
  }),
  fc.record({ t: fc.constant('gc' as const) }),
);

interface Model {
  now: number;
  seq: bigint;
  live: Map<number, string | undefined>;
  /** Ordinal -> release time as stored (whole seconds). */
  cooling: Map<number, number>;
  seqs: Map<number, bigint>;
  queue: number[];
}

function gcModel(m: Model, cooldownSeconds: number): void {
  const freed = [...m.cooling]
    .filter(([, at]) => at + cooldownSeconds * 1000 <= m.now)
    .map(([o]) => o)
    .sort((a, b) => a - b);
  for (const o of freed) {
    m.cooling.delete(o);
    m.seqs.delete(o);
    m.queue.push(o);
  }
}

function coolModel(m: Model, ordinals: readonly number[]): void {
  const at = Math.floor(m.now / 1000) * 1000;
  for (const o of ordinals) {
    m.live.delete(o);
    m.cooling.set(o, at);
    m.seqs.set(o, m.seq);
  }
}

function checkAgainstModel(block: AllocationBlock, m: Model): void {
  expect(findBlockProblems(block)).toEqual([]);
  expect(block.unallocated).toEqual(m.queue);
  expect(block.sequenceNumber).toBe(m.seq);
  for (let o = 0; o < SIZE; o++) {
    const idx = block.allocations[o];
    const attr = idx === null || idx === undefined ? undefined : block.attributes[idx];
    if (m.live.has(o)) {
      expect(attr).toBeDefined();
      expect(attr!.releasedAt).toBeUndefined();
      expect(attr!.handleId).toBe(m.live.get(o));
    } else if (m.cooling.has(o)) {
      expect(attr).toEqual({ releasedAt: toRfc3339Seconds(m.cooling.get(o)!) });
    } else {
      expect(idx).toBeNull();
    }
  }
  expect(
    Object.keys(block.sequenceNumberForAllocation)
      .map(Number)
      .sort((a, b) => a - b),
  ).toEqual([...m.seqs.keys()].sort((a, b) => a - b));
  for (const [o, s] of m.seqs) expect(block.sequenceNumberForAllocation[String(o)]).toBe(s);
}

function step(block: AllocationBlock, m: Model, o: Op, cooldownSeconds: number): AllocationBlock {
  const g = blockGeometry(block.cidr);
  const clock = { nowMs: m.now, cooldownSeconds };
  const ip = (ord: number) => ordinalToIp(g, ord);
  deepFreeze(block);
  switch (o.t) {
    case 'advance':
      m.now += o.ms;
      return block;
    case 'bump':
      m.seq += 1n;
      return { ...block, sequenceNumber: block.sequenceNumber + 1n };
    case 'gc': {
      const r = garbageCollectBlock(block, clock);
      gcModel(m, cooldownSeconds);
      return r.block;
    }
    case 'auto': {
      const reservations = createAddressFilter(
        o.reserved.map((r) => hostCidr(ordinalToAddress(g, r))),
      );
      const r = autoAssignFromBlock(block, {
        num: o.num,
        ...(o.handle !== undefined && { handleId: o.handle }),
        ...(o.pod !== undefined && { attrs: { pod: o.pod } }),
        affinity: 'host:h',
        affinityCheck: false,
        reservations,
      });
      const reserved = new Set(o.reserved);
      const taken = m.queue.filter((q) => !reserved.has(q)).slice(0, o.num);
      expect(r.ips).toEqual(taken.map((t) => `${ip(t)}/${g.prefix}`));
      const takenSet = new Set(taken);
      m.queue = m.queue.filter((q) => !takenSet.has(q));
      for (const t of taken) {
        expect(m.live.has(t) || m.cooling.has(t)).toBe(false); // never handed out twice
        m.live.set(t, o.handle);
        m.seqs.set(t, m.seq);
      }
      return r.block;
    }
    case 'assign': {
      const busy = m.live.has(o.ordinal) || m.cooling.has(o.ordinal);
      try {
        const next = assignInBlock(block, {
          ip: ip(o.ordinal),
          ...(o.handle !== undefined && { handleId: o.handle }),
          affinity: 'host:h',
          affinityCheck: false,
        });
        expect(busy).toBe(false);
        m.live.set(o.ordinal, o.handle);
        m.seqs.set(o.ordinal, m.seq);
        m.queue = m.queue.filter((q) => q !== o.ordinal);
        return next;
      } catch (e) {
        expect(busy && isIpamError(e, 'AlreadyExists')).toBe(true);
        return block;
      }
    }
    case 'release': {
      const unique = [...new Set(o.ordinals)];
      const opts = unique.map((ord) => ({
        address: ip(ord),
        ...(o.handle === 'right' && { handle: m.live.get(ord) ?? '' }),
        ...(o.handle === 'wrong' && { handle: 'zzz' }),
        ...(o.seq === 'right' && { sequenceNumber: m.seqs.get(ord) ?? 0n }),
        ...(o.seq === 'wrong' && { sequenceNumber: (m.seqs.get(ord) ?? 0n) + 12345n }),
      }));
      const fails =
        o.seq === 'wrong' || (o.handle === 'wrong' && unique.some((u) => m.live.has(u)));
      let r;
      try {
        r = releaseFromBlock(block, opts, clock);
      } catch (e) {
        expect(fails).toBe(true);
        expect(isIpamError(e, 'BadHandle', 'BadSequenceNumber')).toBe(true);
        return block;
      }
      expect(fails).toBe(false);
      const releasing = unique.filter((u) => m.live.has(u)).sort((a, b) => a - b);
      expect(r.released).toBe(releasing.length);
      expect(new Set(r.unallocated)).toEqual(new Set(unique.filter((u) => !m.live.has(u)).map(ip)));
      const counts = new Map<string, number>();
      for (const u of releasing) {
        const h = m.live.get(u);
        if (h !== undefined) counts.set(h, (counts.get(h) ?? 0) + 1);
      }
      expect(r.countByHandle).toEqual(counts);
      coolModel(m, releasing);
      gcModel(m, cooldownSeconds);
      return r.block;
    }
    case 'releaseByHandle': {
      const seq = o.seqOf === undefined ? undefined : (m.seqs.get(o.seqOf) ?? 0n);
      const r = releaseByHandleFromBlock(
        block,
        { handleId: o.handle, ...(seq !== undefined && { sequenceNumber: seq }) },
        clock,
      );
      const releasing = [...m.live]
        .filter(([ord, h]) => h === o.handle && (seq === undefined || m.seqs.get(ord) === seq))
        .map(([ord]) => ord);
      expect(r.count).toBe(releasing.length);
      if (releasing.length > 0) {
        coolModel(m, releasing);
        gcModel(m, cooldownSeconds);
      }
      return r.block;
    }
  }
}

describe('block operations (property)', () => {
  it.each(['10.0.0.0/28', 'fd00::/124'])(
    '%s: invariants hold, no address is handed out twice or lost, inputs are never mutated',
    (cidr) => {
      fc.assert(
        fc.property(
          fc.constantFrom(0, 1, 30, 60),
          fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 999 })),
          fc.array(op, { minLength: 1, maxLength: 60 }),
          (cooldownSeconds, startMs, ops) => {
            const start = Date.parse('2026-03-01T00:00:00Z') + startMs;
            let block = newBlock({ cidr, sequenceNumber: 1000n });
            const m: Model = {
              now: start,
              seq: 1000n,
              live: new Map(),
              cooling: new Map(),
              seqs: new Map(),
              queue: Array.from({ length: SIZE }, (_, i) => i),
            };
            for (const o of ops) {
              const before = structuredClone(block);
              const next = step(block, m, o, cooldownSeconds);
              expect(block).toEqual(before);
              block = next;
              checkAgainstModel(block, m);
            }
            // Nothing lost: every ordinal is live, cooling or free, exactly once.
            expect(m.live.size + m.cooling.size + m.queue.length).toBe(SIZE);
          },
        ),
        { numRuns: 300 },
      );
    },
  );
});
