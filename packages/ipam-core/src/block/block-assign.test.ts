import { describe, expect, it } from 'vitest';
import { assignInBlock } from './block-assign.js';
import type { BlockAssignArgs } from './block-assign.js';
import { findBlockProblems } from './block-problems.js';
import { TestBlockBuilder, deepFreeze, thrown } from './test-block-builder.js';

const CIDR = '100.64.0.0/24';
const args = (ip: string, over: Partial<BlockAssignArgs> = {}): BlockAssignArgs => ({
  ip,
  affinity: 'host:h1',
  affinityCheck: false,
  ...over,
});

describe('assignInBlock', () => {
  const block = deepFreeze(
    new TestBlockBuilder(CIDR)
      .sequence(9n)
      .allocate([1], 'h', { pod: 'p' })
      .coolDown([2], '2026-01-01T00:00:00Z')
      .freeOrder([...Array.from({ length: 253 }, (_, i) => 255 - i), 0])
      .build(),
  );

  it('allocates the address, removes it from the queue in place, records the seq', () => {
    const r = assignInBlock(block, args('100.64.0.7', { handleId: 'h', attrs: { pod: 'p' } }));
    expect(r.allocations[7]).toBe(0); // shares the equal record
    expect(r.attributes).toHaveLength(2);
    expect(r.unallocated).toEqual(block.unallocated.filter((o) => o !== 7));
    expect(r.sequenceNumberForAllocation['7']).toBe(9n);
    expect(findBlockProblems(r)).toEqual([]);
  });

  it('the network address is assignable', () => {
    expect(assignInBlock(block, args('100.64.0.0')).allocations[0]).toBe(2);
  });

  it.each([
    ['an allocated address', '100.64.0.1', 'AlreadyExists'],
    ['an address in cooldown', '100.64.0.2', 'AlreadyExists'],
    ['an address outside the block', '100.64.1.0', 'InvalidArgument'],
  ])('%s -> %s', (_, ip, code) => {
    const e = thrown(() => assignInBlock(block, args(ip)));
    expect(e).toMatchObject({ code });
    if (code === 'AlreadyExists')
      expect(e).toMatchObject({ message: 'Address already assigned in block', identifier: ip });
  });

  it.each([
    ['no affinity', undefined, 'Attempt to assign from block 100.64.0.0/24 with no affinity'],
    ['another host', 'host:h2', 'Block host affinity does not match'],
  ])('with the affinity check, a block with %s is refused', (_, affinity, message) => {
    const b = new TestBlockBuilder(CIDR);
    const target = deepFreeze((affinity ? b.affine(affinity) : b).build());
    expect(
      thrown(() => assignInBlock(target, args('100.64.0.9', { affinityCheck: true }))),
    ).toMatchObject({
      code: 'InvalidArgument',
      message,
    });
    expect(assignInBlock(target, args('100.64.0.9')).allocations[9]).toBe(0);
  });
});
