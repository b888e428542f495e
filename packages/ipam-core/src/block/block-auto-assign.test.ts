import { createAddressFilter, parseCidr } from '@netledger/accounting';
import { describe, expect, it } from 'vitest';
import { autoAssignFromBlock } from './block-auto-assign.js';
import type { BlockAutoAssignArgs } from './block-auto-assign.js';
import { findBlockProblems } from './block-problems.js';
import { newBlock } from './new-block.js';
import { TestBlockBuilder, deepFreeze, thrown } from './test-block-builder.js';

const CIDR = '100.64.0.0/24';
const NONE = createAddressFilter([]);
const args = (over: Partial<BlockAutoAssignArgs> = {}): BlockAutoAssignArgs => ({
  num: 1,
  affinity: 'host:h1',
  affinityCheck: false,
  reservations: NONE,
  ...over,
});

describe('autoAssignFromBlock', () => {
  it('takes from the head of the FIFO queue, keeping the rest in order', () => {
    const block = deepFreeze(
      new TestBlockBuilder('10.0.0.0/29')
        .allocate([0, 1], 'x')
        .freeOrder([5, 2, 7, 3, 6, 4])
        .build(),
    );
    const r = autoAssignFromBlock(block, args({ num: 3, handleId: 'h' }));
    expect(r.ips).toEqual(['10.0.0.5/29', '10.0.0.2/29', '10.0.0.7/29']);
    expect(r.block.unallocated).toEqual([3, 6, 4]);
    expect(findBlockProblems(r.block)).toEqual([]);
  });

  it('returns addresses with the block mask, v4 and v6', () => {
    const v6 = newBlock({ cidr: 'fd80:24e2:f998:72d6::/122', sequenceNumber: 1n });
    expect(autoAssignFromBlock(v6, args({ num: 2 })).ips).toEqual([
      'fd80:24e2:f998:72d6::/122',
      'fd80:24e2:f998:72d6::1/122',
    ]);
    const v4 = newBlock({ cidr: CIDR, sequenceNumber: 1n });
    expect(autoAssignFromBlock(v4, args()).ips).toEqual(['100.64.0.0/24']);
  });

  it('skips reserved ordinals, which keep their place in the queue', () => {
    const block = deepFreeze(newBlock({ cidr: '10.0.0.0/29', sequenceNumber: 1n }));
    const reservations = createAddressFilter([parseCidr('10.0.0.1/32'), parseCidr('10.0.0.4/31')]);
    const r = autoAssignFromBlock(block, args({ num: 3, reservations }));
    expect(r.ips).toEqual(['10.0.0.0/29', '10.0.0.2/29', '10.0.0.3/29']);
    expect(r.block.unallocated).toEqual([1, 4, 5, 6, 7]);
    const all = autoAssignFromBlock(r.block, args({ num: 10, reservations }));
    expect(all.ips).toEqual(['10.0.0.6/29', '10.0.0.7/29']);
    expect(all.block.unallocated).toEqual([1, 4, 5]);
  });

  it('a short result is not an error; a full block gives none and the same block', () => {
    const block = deepFreeze(newBlock({ cidr: '10.0.0.0/30', sequenceNumber: 1n }));
    const r = autoAssignFromBlock(block, args({ num: 10 }));
    expect(r.ips).toHaveLength(4);
    const again = autoAssignFromBlock(deepFreeze(r.block), args({ num: 1 }));
    expect(again.ips).toEqual([]);
    expect(again.block).toBe(r.block);
    expect(autoAssignFromBlock(block, args({ num: 0 })).block).toBe(block);
  });

  it('new allocations share one attribute, reused across calls with equal owners', () => {
    const attrs = { pod: 'p', namespace: 'ns' };
    const b0 = deepFreeze(newBlock({ cidr: CIDR, sequenceNumber: 42n }));
    const b1 = autoAssignFromBlock(b0, args({ num: 3, handleId: 'h', attrs })).block;
    expect(b1.attributes).toEqual([{ handleId: 'h', activeOwnerAttrs: attrs }]);
    expect(b1.allocations.slice(0, 3)).toEqual([0, 0, 0]);
    expect(b1.sequenceNumberForAllocation).toEqual({ '0': 42n, '1': 42n, '2': 42n });
    const b2 = autoAssignFromBlock(
      deepFreeze(b1),
      args({ handleId: 'h', attrs: { ...attrs } }),
    ).block;
    expect(b2.attributes).toHaveLength(1);
    expect(b2.allocations[3]).toBe(0);
    // Absent and empty attrs are different records (Calico compares with reflect.DeepEqual).
    const b3 = autoAssignFromBlock(deepFreeze(b2), args({ handleId: 'h' })).block;
    const b4 = autoAssignFromBlock(deepFreeze(b3), args({ handleId: 'h', attrs: {} })).block;
    expect(b4.attributes).toEqual([
      { handleId: 'h', activeOwnerAttrs: attrs },
      { handleId: 'h' },
      { handleId: 'h', activeOwnerAttrs: {} },
    ]);
    expect(b4.allocations.slice(0, 6)).toEqual([0, 0, 0, 0, 1, 2]);
    expect(findBlockProblems(b4)).toEqual([]);
  });

  it.each([
    ['no affinity', undefined, 'Attempt to assign from block 100.64.0.0/24 with no affinity'],
    ['another host', 'host:h2', 'Block affinity (host:h2) does not match provided (host:h1)'],
    [
      'the virtual affinity of the same host',
      'virtual:h1',
      'Block affinity (virtual:h1) does not match provided (host:h1)',
    ],
  ])('with the affinity check, a block with %s is refused', (_, affinity, message) => {
    const b = new TestBlockBuilder(CIDR);
    const block = deepFreeze((affinity ? b.affine(affinity) : b).build());
    expect(thrown(() => autoAssignFromBlock(block, args({ affinityCheck: true })))).toMatchObject({
      code: 'InvalidArgument',
      message,
    });
    expect(autoAssignFromBlock(block, args({ affinityCheck: false })).ips).toHaveLength(1);
  });

  it('with the affinity check, an affine block is used', () => {
    const block = deepFreeze(new TestBlockBuilder(CIDR).affine('host:h1').build());
    expect(autoAssignFromBlock(block, args({ affinityCheck: true })).ips).toEqual([
      '100.64.0.0/24',
    ]);
  });
});
