import { createAddressFilter } from '@netledger/accounting';
import { describe, expect, it } from 'vitest';
import { autoAssignFromBlock } from './block-auto-assign.js';
import { findBlockProblems } from './block-problems.js';
import { isBlockEmpty, numFreeAddresses } from './block-queries.js';
import { newBlock } from './new-block.js';
import { BIG_SEQUENCE } from './test-block-builder.js';

const NONE = createAddressFilter([]);
const rsvd = (startOfBlock: number, endOfBlock: number) => ({
  startOfBlock,
  endOfBlock,
  handle: 'test-handle',
  note: 'ipam ut',
});

describe('newBlock', () => {
  it.each([
    ['10.0.0.0/30', 4],
    ['100.64.0.0/24', 256],
    ['fd80:24e2:f998:72d6::/122', 64],
    ['10.0.0.5/32', 1],
  ])('%s: %i free ordinals in ascending order, no attributes, no seqs', (cidr, size) => {
    const b = newBlock({ cidr, sequenceNumber: BIG_SEQUENCE });
    expect(b).toMatchObject({
      cidr,
      attributes: [],
      sequenceNumber: BIG_SEQUENCE,
      sequenceNumberForAllocation: {},
      deleted: false,
    });
    expect(b.allocations).toEqual(Array.from({ length: size }, () => null));
    expect(b.unallocated).toEqual(Array.from({ length: size }, (_, i) => i));
    expect(b).not.toHaveProperty('affinity');
    expect(findBlockProblems(b)).toEqual([]);
  });

  it('carries affinity and claim time when given', () => {
    const b = newBlock({
      cidr: '10.0.0.0/30',
      sequenceNumber: 1n,
      affinity: 'host:h',
      affinityClaimTime: '2026-01-01T00:00:00Z',
    });
    expect(b).toMatchObject({ affinity: 'host:h', affinityClaimTime: '2026-01-01T00:00:00Z' });
  });

  // §5.2 item 9 (ipam_block_reader_writer_test.go L1230-1259).
  it('/30 with host-reserved {2, 1}: only ordinal 2 free, one attribute with the note', () => {
    const b = newBlock({ cidr: '10.0.0.0/30', sequenceNumber: 1n, hostReserved: rsvd(2, 1) });
    expect(b.allocations).toEqual([0, 0, null, 0]);
    expect(b.unallocated).toEqual([2]);
    expect(b.attributes).toEqual([
      { handleId: 'test-handle', activeOwnerAttrs: { note: 'ipam ut' } },
    ]);
    expect(b.sequenceNumberForAllocation).toEqual({});
    expect(numFreeAddresses(b, NONE)).toBe(1);
    expect(isBlockEmpty(b)).toBe(false);
    expect(findBlockProblems(b)).toEqual([]);
    const r = autoAssignFromBlock(b, {
      num: 1,
      affinity: 'host:h',
      affinityCheck: false,
      reservations: NONE,
    });
    expect(r.ips).toEqual(['10.0.0.2/30']);
  });

  it.each([
    ['10.0.0.0/26', 64],
    ['100.64.0.0/24', 256],
    ['fd00::/122', 64],
  ])('%s with the Windows reservation {3, 1}', (cidr, size) => {
    const b = newBlock({ cidr, sequenceNumber: 1n, hostReserved: rsvd(3, 1) });
    expect(b.unallocated).toEqual(Array.from({ length: size - 4 }, (_, i) => i + 3));
    for (const o of [0, 1, 2, size - 1]) expect(b.allocations[o]).toBe(0);
    expect(b.allocations.filter((a) => a !== null)).toHaveLength(4);
    expect(findBlockProblems(b)).toEqual([]);
  });

  it('reservations that cover the whole block leave nothing free', () => {
    const b = newBlock({ cidr: '10.0.0.0/30', sequenceNumber: 1n, hostReserved: rsvd(3, 2) });
    expect(b.unallocated).toEqual([]);
    expect(b.allocations).toEqual([0, 0, 0, 0]);
    expect(findBlockProblems(b)).toEqual([]);
  });
});
