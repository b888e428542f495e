import { describe, expect, it } from 'vitest';
import type { AllocationBlock } from '../model/block.js';
import { findBlockProblems } from './block-problems.js';
import { TestBlockBuilder } from './test-block-builder.js';

const NOW = Date.parse('2026-06-01T00:00:00Z');

const block = (o: Partial<AllocationBlock>): AllocationBlock => ({
  cidr: '10.0.0.0/30',
  allocations: [null, null, null, null],
  unallocated: [0, 1, 2, 3],
  attributes: [],
  sequenceNumber: 0n,
  sequenceNumberForAllocation: {},
  deleted: false,
  ...o,
});

describe('findBlockProblems', () => {
  it('finds nothing wrong with built blocks, allocated, cooling or empty', () => {
    const built = new TestBlockBuilder('10.0.0.0/29')
      .allocate([0, 1], 'h1', { node: 'n1' })
      .coolDown([5], '2026-01-01T00:00:00Z')
      .build();
    expect(findBlockProblems(built, { nowMs: NOW })).toEqual([]);
    expect(findBlockProblems(block({}))).toEqual([]);
  });

  // The first problem is the one calicoctl's validateBlock reports, in its words.
  it.each([
    [
      { allocations: [99, null, null, null], unallocated: [1, 2, 3] },
      'MissingAttribute',
      'allocation 0 indexes a nonexistent attribute 99',
    ],
    [
      { allocations: [-1, null, null, null], unallocated: [1, 2, 3] },
      'MissingAttribute',
      'allocation 0 indexes a nonexistent attribute -1',
    ],
    [
      { attributes: [{ handleId: 'uhoh' }] },
      'UnreferencedAttribute',
      'attribute index 0 exists but is not indexed by an allocation',
    ],
    [
      {
        allocations: [0, null, null, null],
        unallocated: [1, 2, 3],
        attributes: [{ releasedAt: '2027-01-01T00:00:00Z' }],
      },
      'ReleasedInFuture',
      'attribute index 0 has releasedAt in the future, suggesting clock skew',
    ],
    [
      { unallocated: [0, 1, 2, 4] },
      'FreeOutsideBlock',
      'ordinal 4 appears in the Unallocated array but is out of the block',
    ],
    [
      { unallocated: [0, 1, 2, 2] },
      'FreeTwice',
      'ordinal 2 appears more than once in Unallocated array',
    ],
    [
      { allocations: [0, null, null, null], attributes: [{ handleId: 'a' }] },
      'AllocatedAndFree',
      'ordinal 0 is allocated but appears in Unallocated',
    ],
    [
      { unallocated: [0, 1] },
      'CountMismatch',
      'expected 4 addresses in this block, but Unallocated (2) + Allocated (0) = 2',
    ],
    [
      { allocations: [null, null, null, null, null] },
      'AllocationsSize',
      'the allocations array has 5 entries for a block of 4 addresses',
    ],
  ])('%j: %s first, in calicoctl words', (o, code, message) => {
    const problems = findBlockProblems(block(o), { nowMs: NOW });
    expect(problems[0]).toMatchObject({ code, message });
  });

  it('lists every problem, not only the first, with the ordinal or attribute it is about', () => {
    const problems = findBlockProblems(
      block({
        allocations: [7, 0, null, null],
        unallocated: [1, 2, 2, 9],
        attributes: [{ handleId: 'a' }, { handleId: 'b' }],
      }),
    );
    expect(problems.map((p) => [p.code, p.ordinal ?? p.attributeIndex])).toEqual([
      ['MissingAttribute', 0],
      ['UnreferencedAttribute', 1],
      ['AllocatedAndFree', 1],
      ['FreeTwice', 2],
      ['FreeOutsideBlock', 9],
      ['CountMismatch', undefined],
    ]);
  });

  it('judges release times only when given the time', () => {
    const future = block({
      allocations: [0, null, null, null],
      unallocated: [1, 2, 3],
      attributes: [{ releasedAt: '2027-01-01T00:00:00Z' }],
    });
    expect(findBlockProblems(future)).toEqual([]);
    expect(findBlockProblems(future, { nowMs: NOW })).toHaveLength(1);
  });
});
