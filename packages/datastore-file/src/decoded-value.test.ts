import type { AllocationBlock, DatastoreKey } from '@netledger/ipam-core';
import { decodeValue, encodeValue } from '@netledger/ipam-core/adapter';
import { BIG_SEQUENCE, BlockBuilder, buildPool } from '@netledger/testkit';
import { describe, expect, it } from 'vitest';
import { decodeStoredValue } from './decoded-value.js';
import type { StoredEntry } from './store-snapshot.js';

const BLOCK_KEY: DatastoreKey<'IPAMBlock'> = { kind: 'IPAMBlock', cidr: '10.0.0.0/30' };
const blockText = encodeValue(
  'IPAMBlock',
  new BlockBuilder('10.0.0.0/30')
    .affine('node1')
    .allocate([0], 'h1', { node: 'node1', pod: 'p0' })
    .allocate([1], 'h2', { node: 'node1', pod: 'p1' })
    .build(),
);

/** An entry whose `value` text counts how often it is read (each decode reads it once). */
function countingEntry(
  key: DatastoreKey,
  text: string,
): { entry: StoredEntry; reads: () => number } {
  let reads = 0;
  const entry = {
    key,
    get value() {
      reads++;
      return text;
    },
    modRevision: 3,
    createRevision: 1,
    uid: 'u1',
  };
  return { entry, reads: () => reads };
}

describe('decodeStoredValue', () => {
  it.each<{ kind: string; key: DatastoreKey; text: string }>([
    { kind: 'IPAMBlock', key: BLOCK_KEY, text: blockText },
    {
      kind: 'IPAMHandle',
      key: { kind: 'IPAMHandle', handleId: 'h1' },
      text: '{"handleID":"h1","block":{"10.0.0.0/30":1},"deleted":false}',
    },
    {
      kind: 'IPPool',
      key: { kind: 'IPPool', name: 'p' },
      text: encodeValue('IPPool', buildPool('p', '10.0.0.0/16')),
    },
    {
      kind: 'BlockAffinity',
      key: { kind: 'BlockAffinity', host: 'node1', cidr: '10.0.0.0/30', affinityType: 'host' },
      text: '{"state":"confirmed","deleted":false}',
    },
  ])('gives what decodeValue gives for $kind, decoding twice at most', ({ key, text }) => {
    const { entry, reads } = countingEntry(key, text);
    const values = [1, 2, 3, 4].map(() => decodeStoredValue(entry));
    for (const v of values) expect(v).toEqual(decodeValue(key, text));
    expect(new Set(values).size).toBe(values.length);
    expect(reads()).toBe(2);
  });

  it('hands out copies: changing one, deep down, changes no later read', () => {
    const { entry } = countingEntry(BLOCK_KEY, blockText);
    type Mutable = { -readonly [F in keyof AllocationBlock]: AllocationBlock[F] };
    // The first reads decode, later ones copy what is kept: change what each kind gave.
    for (let i = 0; i < 3; i++) {
      const mine = decodeStoredValue(entry) as Mutable;
      (mine.allocations as (number | null)[])[2] = 0;
      (mine.attributes[0]!.activeOwnerAttrs as Record<string, string>)['pod'] = 'changed';
      (mine.sequenceNumberForAllocation as Record<string, bigint>)['0'] = 1n;
      mine.sequenceNumber = 0n;
    }
    const again = decodeStoredValue(entry) as AllocationBlock;
    expect(again).toEqual(decodeValue(BLOCK_KEY, blockText));
    expect(again.sequenceNumber).toBe(BIG_SEQUENCE);
    expect(again.attributes[0]!.activeOwnerAttrs).toEqual({ node: 'node1', pod: 'p0' });
  });

  it('keeps a "__proto__" key as data, as JSON.parse does', () => {
    const text = blockText.replace('"pod":"p0"', '"pod":"p0","__proto__":"x"');
    expect(text).not.toBe(blockText);
    const { entry } = countingEntry(BLOCK_KEY, text);
    decodeStoredValue(entry);
    decodeStoredValue(entry);
    const copy = decodeStoredValue(entry) as AllocationBlock;
    const attrs = copy.attributes[0]!.activeOwnerAttrs!;
    expect(Object.getPrototypeOf(attrs)).toBe(Object.prototype);
    expect(Object.keys(attrs)).toContain('__proto__');
    expect(copy).toEqual(decodeValue(BLOCK_KEY, text));
  });

  it('throws for a value that does not decode, every time, keeping nothing', () => {
    const { entry, reads } = countingEntry(BLOCK_KEY, '{"cidr": 7}');
    expect(() => decodeStoredValue(entry)).toThrow(
      expect.objectContaining({ code: 'CorruptValue' }),
    );
    expect(() => decodeStoredValue(entry)).toThrow(
      expect.objectContaining({ code: 'CorruptValue' }),
    );
    expect(reads()).toBe(2);
  });
});
