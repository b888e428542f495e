import { BIG_SEQUENCE, BlockBuilder } from '@netledger/testkit';
import { describe, expect, it } from 'vitest';
import {
  decodeAffinitySpec,
  decodeBlockSpec,
  decodeConfigSpec,
  decodeHandleSpec,
  encodeBlockSpec,
  encodeConfigSpec,
} from './ipam-crd-codec.js';

const key = { kind: 'IPAMBlock', cidr: '10.0.0.0/30' } as const;

describe('IPAM CRD specs', () => {
  it('round-trips a block with CRD field names and its exact uint64 sequence numbers', () => {
    const block = new BlockBuilder('10.0.0.0/30')
      .affine('n1')
      .allocate([0, 2], 'h', { pod: 'p' })
      .build();
    const spec = encodeBlockSpec(block);
    expect(spec).toMatchObject({ cidr: '10.0.0.0/30', affinity: 'host:n1', strictAffinity: false });
    expect(spec.sequenceNumber).toBe(BIG_SEQUENCE);
    expect(spec).not.toHaveProperty('affinity_claim_time');
    expect(decodeBlockSpec(key, spec)).toEqual(block);
  });

  it('writes no nulls the CRD would prune, and reads absent fields as Calico does', () => {
    const spec = encodeBlockSpec(new BlockBuilder('10.0.0.0/30').build());
    expect(Object.values(spec)).not.toContain(null);
    expect(spec).not.toHaveProperty('affinity');
    expect(
      decodeBlockSpec(key, {
        cidr: '10.0.0.0/30',
        allocations: [null, null, null, null],
        unallocated: [0, 1, 2, 3],
        attributes: [],
      }),
    ).toMatchObject({
      sequenceNumber: 0n,
      sequenceNumberForAllocation: {},
      deleted: false,
    });
  });

  it('refuses a sequence number the CRD int64 cannot hold', () => {
    const block = { ...new BlockBuilder('10.0.0.0/30').build(), sequenceNumber: 2n ** 63n };
    expect(() => encodeBlockSpec(block)).toThrow(/does not fit the IPAMBlock CRD's int64/);
  });

  it.each([
    ['true', true],
    ['false', false],
    ['', false],
    [true, true],
  ])('reads an affinity deleted %j as %s; an empty type is host', (deleted, want) => {
    expect(decodeAffinitySpec({ node: 'n', cidr: '10.0.0.0/26', state: '', deleted })).toEqual({
      key: { kind: 'BlockAffinity', host: 'n', cidr: '10.0.0.0/26', affinityType: 'host' },
      value: { state: 'confirmed', deleted: want },
    });
  });

  it('keeps the handle ID case from spec.handleID', () => {
    expect(
      decodeHandleSpec({ handleID: 'Mixed.Case', block: { '10.0.0.0/26': 2 } }, 'mixed.case'),
    ).toEqual({
      key: { kind: 'IPAMHandle', handleId: 'Mixed.Case' },
      value: { handleId: 'Mixed.Case', block: { '10.0.0.0/26': 2 }, deleted: false },
    });
  });

  it('round-trips the IPAM config, leaving zero values out', () => {
    const c = {
      strictAffinity: true,
      autoAllocateBlocks: false,
      maxBlocksPerHost: 0,
      ipCooldownSeconds: 30,
    };
    expect(encodeConfigSpec(c)).toEqual({
      strictAffinity: true,
      autoAllocateBlocks: false,
      ipCooldownSeconds: 30,
    });
    expect(decodeConfigSpec(encodeConfigSpec(c))).toEqual(c);
  });
});
