import { createAddressFilter } from '@netledger/accounting';
import { describe, expect, it } from 'vitest';
import { findBlockProblems } from './block-problems.js';
import { numFreeAddresses } from './block-queries.js';
import { garbageCollectBlock, pruneAttributes } from './garbage-collect.js';
import { newBlock } from './new-block.js';
import { TestBlockBuilder, deepFreeze } from './test-block-builder.js';

const CIDR = '100.64.0.0/24';
const T = Date.parse('2026-03-01T12:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();

// §5.2 item 55.
describe('garbageCollectBlock', () => {
  it('an empty block: nothing to do, the same block back', () => {
    const block = deepFreeze(newBlock({ cidr: CIDR, sequenceNumber: 1n }));
    const r = garbageCollectBlock(block, { nowMs: T, cooldownSeconds: 0 });
    expect(r.changed).toBe(false);
    expect(r.block).toBe(block);
  });

  it('two spurious attributes and a real one: changed, one attribute left, indexes remapped', () => {
    const block = deepFreeze(
      new TestBlockBuilder(CIDR)
        .attribute({ handleId: 'spurious-1' })
        .allocate([5, 6], 'real')
        .attribute({ handleId: 'spurious-2' })
        .build(),
    );
    expect(block.allocations[5]).toBe(1);
    const r = garbageCollectBlock(block, { nowMs: T, cooldownSeconds: 0 });
    expect(r.changed).toBe(true);
    expect(r.block.attributes).toEqual([{ handleId: 'real' }]);
    expect(r.block.allocations[5]).toBe(0);
    expect(r.block.allocations[6]).toBe(0);
    expect(findBlockProblems(r.block)).toEqual([]);
  });

  it('{31,33} released a minute ago, {42,44} released a minute in the future, {52,54} live, cooldown 30', () => {
    const block = deepFreeze(
      new TestBlockBuilder(CIDR)
        .coolDown([31, 33], iso(T - 60_000))
        .coolDown([42, 44], iso(T + 60_000))
        .allocate([52, 54], 'live')
        .build(),
    );
    const r = garbageCollectBlock(block, { nowMs: T, cooldownSeconds: 30 });
    expect(r.changed).toBe(true);
    expect(r.block.allocations.filter((a) => a !== null)).toHaveLength(4);
    expect(numFreeAddresses(r.block, createAddressFilter([]))).toBe(252);
    expect(r.block.allocations[31]).toBeNull();
    expect(r.block.unallocated.slice(-2)).toEqual([31, 33]);
    expect(r.block.sequenceNumberForAllocation).not.toHaveProperty('31');
    expect(r.block.sequenceNumberForAllocation).toHaveProperty('42');
    expect(r.block.attributes).toEqual([{ releasedAt: iso(T + 60_000) }, { handleId: 'live' }]);
    expect(r.block.allocations[42]).toBe(0);
    expect(r.block.allocations[52]).toBe(1);
    expect(findBlockProblems(r.block)).toEqual([]);
  });

  // Released at T (stored at one-second precision): free once T + cooldown <= now.
  it.each([
    [0, 0, true],
    [-5, -1, true],
    [30, 29_999, false],
    [30, 30_000, true],
    [30, 30_001, true],
    [1, 999, false],
    [1, 1_000, true],
    [3600, 3_599_999, false],
    [3600, 3_600_000, true],
  ])('cooldown %is, now = release + %ims -> freed %s', (cooldownSeconds, after, freed) => {
    const block = deepFreeze(new TestBlockBuilder(CIDR).coolDown([9], iso(T)).build());
    const r = garbageCollectBlock(block, { nowMs: T + after, cooldownSeconds });
    expect(r.changed).toBe(freed);
    expect(r.block.allocations[9] === null).toBe(freed);
    expect(findBlockProblems(r.block)).toEqual([]);
  });

  it('frees ordinals of several cooldown records in ascending order, after the existing queue', () => {
    const block = deepFreeze(
      new TestBlockBuilder('10.0.0.0/29')
        .coolDown([6], iso(T - 10_000))
        .coolDown([1, 4], iso(T - 20_000))
        .allocate([2], 'h')
        .freeOrder([7, 0, 3, 5])
        .build(),
    );
    const r = garbageCollectBlock(block, { nowMs: T, cooldownSeconds: 5 });
    expect(r.block.unallocated).toEqual([7, 0, 3, 5, 1, 4, 6]);
    expect(r.block.attributes).toEqual([{ handleId: 'h' }]);
    expect(r.block.allocations[2]).toBe(0);
  });

  it('remaps indexes when an attribute in the middle goes away', () => {
    const block = deepFreeze(
      new TestBlockBuilder(CIDR)
        .allocate([1], 'a')
        .coolDown([2], iso(T - 60_000))
        .allocate([3], 'c')
        .coolDown([4], iso(T))
        .build(),
    );
    const r = garbageCollectBlock(block, { nowMs: T, cooldownSeconds: 30 });
    expect(r.block.attributes).toEqual([
      { handleId: 'a' },
      { handleId: 'c' },
      { releasedAt: iso(T) },
    ]);
    expect(r.block.allocations.slice(1, 5)).toEqual([0, null, 1, 2]);
  });

  // §5.2 item 56 (the pure part of GarbageCollectColdIPs): a cold and a live ordinal.
  it('a cold ordinal (released an hour ago) is freed, the caller’s block is untouched', () => {
    const block = deepFreeze(
      new TestBlockBuilder(CIDR)
        .coolDown([1], iso(T - 3_600_000))
        .allocate([2], 'live')
        .build(),
    );
    const before = structuredClone(block);
    const r = garbageCollectBlock(block, { nowMs: T, cooldownSeconds: 30 });
    expect(r.changed).toBe(true);
    expect(r.block.allocations[1]).toBeNull();
    expect(r.block.unallocated).toContain(1);
    expect(r.block.attributes).toHaveLength(1);
    expect(block).toEqual(before);
    expect(garbageCollectBlock(block, { nowMs: T, cooldownSeconds: 100_000 }).changed).toBe(false);
  });

  it('never frees live allocations, whatever the cooldown', () => {
    const block = deepFreeze(new TestBlockBuilder(CIDR).allocate([1, 2], 'h').build());
    expect(garbageCollectBlock(block, { nowMs: T, cooldownSeconds: -100 }).block).toBe(block);
  });
});

describe('pruneAttributes', () => {
  it('returns the same block when every attribute is used', () => {
    const block = deepFreeze(new TestBlockBuilder(CIDR).allocate([1], 'a').build());
    expect(pruneAttributes(block)).toBe(block);
  });

  it('drops unused records and remaps', () => {
    const block = deepFreeze(
      new TestBlockBuilder(CIDR)
        .attribute({ handleId: 'x' })
        .allocate([8], 'a')
        .attribute({ handleId: 'y' })
        .allocate([9], 'b')
        .build(),
    );
    const pruned = pruneAttributes(block);
    expect(pruned.attributes).toEqual([{ handleId: 'a' }, { handleId: 'b' }]);
    expect([pruned.allocations[8], pruned.allocations[9]]).toEqual([0, 1]);
    expect(pruned.unallocated).toBe(block.unallocated);
  });
});
