import { describe, expect, it } from 'vitest';
import { findBlockProblems } from './block-problems.js';
import { releaseByHandleFromBlock, releaseFromBlock, toRfc3339Seconds } from './block-release.js';
import { TestBlockBuilder, deepFreeze, thrown } from './test-block-builder.js';

const CIDR = '100.64.0.0/24';
const NOW = Date.parse('2026-03-01T12:00:00.250Z');
const NO_COOLDOWN = { nowMs: NOW, cooldownSeconds: 0 };
const ip = (o: number) => `100.64.0.${o}`;

// §5.2 item 53.
describe('releaseFromBlock', () => {
  it('releases one address: counted by handle, freed to the tail of the queue', () => {
    const block = deepFreeze(new TestBlockBuilder(CIDR).allocate([13], 'unlucky').build());
    const r = releaseFromBlock(block, [{ address: ip(13) }], NO_COOLDOWN);
    expect(r.countByHandle).toEqual(new Map([['unlucky', 1]]));
    expect(r).toMatchObject({ unallocated: [], released: 1 });
    expect(r.block.allocations[13]).toBeNull();
    expect(r.block.unallocated.at(-1)).toBe(13);
    expect(r.block.attributes).toEqual([]);
    expect(r.block.sequenceNumberForAllocation).toEqual({});
    expect(findBlockProblems(r.block)).toEqual([]);
  });

  it('releasing one of three addresses sharing an attribute frees only that one', () => {
    const block = deepFreeze(new TestBlockBuilder(CIDR).allocate([1, 2, 3], 'lucky').build());
    const r = releaseFromBlock(block, [{ address: ip(2) }], NO_COOLDOWN);
    expect(r.countByHandle).toEqual(new Map([['lucky', 1]]));
    expect(r.block.allocations.slice(0, 4)).toEqual([null, 0, null, 0]);
    expect(r.block.attributes).toEqual([{ handleId: 'lucky' }]);
    expect(findBlockProblems(r.block)).toEqual([]);
  });

  it('releasing all three gives {lucky: 3} and drops the attribute', () => {
    const block = deepFreeze(new TestBlockBuilder(CIDR).allocate([1, 2, 3], 'lucky').build());
    const r = releaseFromBlock(
      block,
      [3, 1, 2].map((o) => ({ address: ip(o) })),
      NO_COOLDOWN,
    );
    expect(r.countByHandle).toEqual(new Map([['lucky', 3]]));
    expect(r.block.attributes).toEqual([]);
    // Freed together: queued in ordinal order, whatever the request order.
    expect(r.block.unallocated.slice(-3)).toEqual([1, 2, 3]);
  });

  it('counts sanitized handles, and not allocations without a handle', () => {
    const block = new TestBlockBuilder(CIDR).allocate([1], 'h\rjunk').allocate([2]).build();
    const r = releaseFromBlock(block, [{ address: ip(1) }, { address: ip(2) }], NO_COOLDOWN);
    expect(r.countByHandle).toEqual(new Map([['h', 1]]));
    expect(r.released).toBe(2);
  });

  it.each([
    ['a free address', new TestBlockBuilder(CIDR).allocate([1], 'h').build()],
    [
      'an address in cooldown',
      new TestBlockBuilder(CIDR).coolDown([5], '2026-03-01T11:59:59Z').build(),
    ],
  ])('%s comes back as unallocated, nothing else changes', (_, b) => {
    const block = deepFreeze(b);
    const r = releaseFromBlock(block, [{ address: ip(5) }], { nowMs: NOW, cooldownSeconds: 60 });
    expect(r).toMatchObject({ unallocated: [ip(5)], released: 0 });
    expect(r.countByHandle.size).toBe(0);
    expect(r.block).toEqual(block);
  });

  it('de-duplicates by address, the last option winning', () => {
    const block = deepFreeze(new TestBlockBuilder(CIDR).allocate([7], 'right').build());
    const r = releaseFromBlock(
      block,
      [
        { address: ip(7), handle: 'wrong' },
        { address: ip(7), handle: 'right' },
      ],
      NO_COOLDOWN,
    );
    expect(r.countByHandle).toEqual(new Map([['right', 1]]));
    expect(r.released).toBe(1);
  });

  const guarded = deepFreeze(
    new TestBlockBuilder(CIDR)
      .allocate([20], 'newstuff', undefined, { seq: 10n })
      .allocate([21], 'other', undefined, { seq: 10n })
      .build(),
  );
  it.each([
    [
      'a handle mismatch (oldstuff vs newstuff)',
      [{ address: ip(20), handle: 'oldstuff' }],
      'BadHandle',
    ],
    [
      'a sequence mismatch (stored 10, requested 999)',
      [{ address: ip(20), sequenceNumber: 999n }],
      'BadSequenceNumber',
    ],
    [
      'a seq on a free ordinal (stored 0): checked before "is allocated"',
      [{ address: ip(30), sequenceNumber: 10n }],
      'BadSequenceNumber',
    ],
    [
      'one bad option among good ones rejects the whole call',
      [{ address: ip(21) }, { address: ip(20), handle: 'oldstuff' }],
      'BadHandle',
    ],
    ['an address outside the block', [{ address: '100.65.0.1' }], 'InvalidArgument'],
  ])('%s -> %s, nothing changed', (_, options, code) => {
    expect(thrown(() => releaseFromBlock(guarded, options, NO_COOLDOWN))).toMatchObject({ code });
  });

  it.each([
    ['the matching handle', { handle: 'newstuff' }],
    ['an empty handle (no check)', { handle: '' }],
    ['the matching sequence number', { sequenceNumber: 10n }],
  ])('releases with %s', (_, guard) => {
    const r = releaseFromBlock(guarded, [{ address: ip(20), ...guard }], NO_COOLDOWN);
    expect(r.released).toBe(1);
  });

  it('a free ordinal with a requested seq of 0 is simply unallocated', () => {
    const r = releaseFromBlock(guarded, [{ address: ip(30), sequenceNumber: 0n }], NO_COOLDOWN);
    expect(r).toMatchObject({ unallocated: [ip(30)], released: 0 });
  });

  it('with a cooldown, released addresses point at one releasedAt attribute and keep a seq', () => {
    const block = deepFreeze(
      new TestBlockBuilder(CIDR).sequence(77n).allocate([4, 6], 'h').allocate([8], 'k').build(),
    );
    const r = releaseFromBlock(block, [{ address: ip(4) }, { address: ip(8) }], {
      nowMs: NOW,
      cooldownSeconds: 30,
    });
    const cooling = r.block.allocations[4]!;
    expect(r.block.allocations[8]).toBe(cooling);
    expect(r.block.attributes[cooling]).toEqual({ releasedAt: toRfc3339Seconds(NOW) });
    expect(r.block.attributes[cooling]!.releasedAt).toBe('2026-03-01T12:00:00Z');
    expect(r.block.sequenceNumberForAllocation).toMatchObject({ '4': 77n, '8': 77n });
    expect(r.block.unallocated).not.toContain(4);
    expect(r.block.attributes).toHaveLength(2); // 'h' (still on 6) and the cooldown record
    expect(findBlockProblems(r.block)).toEqual([]);
  });
});

// §5.2 item 54.
describe('releaseByHandleFromBlock', () => {
  it('an unknown handle releases nothing and returns the block as is', () => {
    const block = deepFreeze(new TestBlockBuilder(CIDR).allocate([1], 'h').build());
    const r = releaseByHandleFromBlock(block, { handleId: 'unknown' }, NO_COOLDOWN);
    expect(r).toEqual({ block, count: 0 });
    expect(r.block).toBe(block);
  });

  it('releases "fifteen", leaves "twenty" and queues 15 at the tail', () => {
    const block = deepFreeze(
      new TestBlockBuilder(CIDR).allocate([15], 'fifteen').allocate([20], 'twenty').build(),
    );
    const r = releaseByHandleFromBlock(block, { handleId: 'fifteen' }, NO_COOLDOWN);
    expect(r.count).toBe(1);
    expect(r.block.allocations[15]).toBeNull();
    expect(r.block.allocations[20]).toBe(0);
    expect(r.block.attributes).toEqual([{ handleId: 'twenty' }]);
    expect(r.block.unallocated.at(-1)).toBe(15);
    expect(findBlockProblems(r.block)).toEqual([]);
  });

  it('with a sequence number, releases only the ordinals at it (others skipped silently)', () => {
    const block = deepFreeze(
      new TestBlockBuilder(CIDR)
        .allocate([15, 16, 18], 'h', undefined, { seq: 10n })
        .allocate([17], 'h', undefined, { seq: 999n, attribute: 0 })
        .build(),
    );
    const r = releaseByHandleFromBlock(block, { handleId: 'h', sequenceNumber: 10n }, NO_COOLDOWN);
    expect(r.count).toBe(3);
    expect(r.block.allocations[17]).toBe(0);
    expect(r.block.unallocated.slice(-3)).toEqual([15, 16, 18]);
  });

  it.each([
    [
      'separate attributes',
      new TestBlockBuilder(CIDR)
        .allocate([30], 'h', { pod: 'a' })
        .allocate([10], 'h', { pod: 'b' })
        .allocate([20], 'h')
        .build(),
    ],
    ['one shared attribute', new TestBlockBuilder(CIDR).allocate([10, 20, 30], 'h').build()],
  ])('the same handle across %s: 3 released, all at the tail', (_, b) => {
    const block = deepFreeze(b);
    const r = releaseByHandleFromBlock(block, { handleId: 'h' }, NO_COOLDOWN);
    expect(r.count).toBe(3);
    expect(r.block.unallocated.slice(-3)).toEqual([10, 20, 30]);
    expect(r.block.attributes).toEqual([]);
  });

  it('allocations without a handle belong to no handle, not even the empty one', () => {
    const block = deepFreeze(new TestBlockBuilder(CIDR).allocate([1]).allocate([2], '').build());
    const r = releaseByHandleFromBlock(block, { handleId: '' }, NO_COOLDOWN);
    expect(r.count).toBe(1);
    expect(r.block.allocations[1]).toBe(0);
    expect(r.block.allocations[2]).toBeNull();
  });

  it('skips addresses already cooling and records a seq for the ones it cools', () => {
    const block = deepFreeze(
      new TestBlockBuilder(CIDR)
        .sequence(5n)
        .allocate([1, 2], 'h')
        .coolDown([3], '2026-03-01T11:59:59Z')
        .build(),
    );
    const r = releaseByHandleFromBlock(
      block,
      { handleId: 'h' },
      { nowMs: NOW, cooldownSeconds: 60 },
    );
    expect(r.count).toBe(2);
    const idx = r.block.allocations[1]!;
    expect(r.block.allocations[2]).toBe(idx);
    expect(r.block.attributes[idx]).toEqual({ releasedAt: '2026-03-01T12:00:00Z' });
    expect(r.block.allocations[3]).not.toBe(idx);
    expect(findBlockProblems(r.block)).toEqual([]);
  });
});
