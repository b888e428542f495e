import { describe, expect, it } from 'vitest';
import { IpamError } from '../errors.js';
import type { DatastoreKey } from '../model/keys.js';
import { parseJson } from './json.js';
import { decodeValue, encodeValue } from './value-codec.js';

// The example block of calico-ipam-internals.md §2.1, with its 64 ordinals spelled out.
const allocations = [0, ...Array.from({ length: 63 }, () => null)];
const unallocated = Array.from({ length: 63 }, (_, i) => i + 1);
const calicoBlock =
  '{"cidr":"10.0.0.0/26","affinity":"host:node1","affinity_claim_time":"2026-01-01T00:00:00Z",' +
  `"allocations":${JSON.stringify(allocations)},"unallocated":${JSON.stringify(unallocated)},` +
  '"attributes":[{"handle_id":"k8s-pod-network.abc","secondary":{"namespace":"default","node":"node1","pod":"p1"}}],' +
  '"sequenceNumber":1767225600000000001,"sequenceNumberForAllocation":{"0":1767225600000000000},"deleted":false}';

const blockKey: DatastoreKey<'IPAMBlock'> = { kind: 'IPAMBlock', cidr: '10.0.0.0/26' };

describe('value codec', () => {
  it('decodes Calico block JSON keeping uint64 sequence numbers exact', () => {
    const block = decodeValue(blockKey, calicoBlock);
    expect(block.sequenceNumber).toBe(1767225600000000001n);
    expect(block.sequenceNumberForAllocation).toEqual({ '0': 1767225600000000000n });
    expect(block).toMatchObject({
      cidr: '10.0.0.0/26',
      affinity: 'host:node1',
      affinityClaimTime: '2026-01-01T00:00:00Z',
      deleted: false,
    });
    expect(block.attributes[0]).toEqual({
      handleId: 'k8s-pod-network.abc',
      activeOwnerAttrs: { namespace: 'default', node: 'node1', pod: 'p1' },
    });
    expect(block.allocations.slice(0, 2)).toEqual([0, null]);
    expect(block.unallocated).toHaveLength(63);
  });

  it('round-trips the example block byte for byte', () => {
    expect(encodeValue('IPAMBlock', decodeValue(blockKey, calicoBlock))).toBe(calicoBlock);
  });

  it('writes sequence numbers at the top of the uint64 range exactly', () => {
    const block = decodeValue(blockKey, calicoBlock);
    const max = (1n << 64n) - 1n;
    const text = encodeValue('IPAMBlock', { ...block, sequenceNumber: max });
    expect(text).toContain('"sequenceNumber":18446744073709551615,');
    expect(decodeValue(blockKey, text).sequenceNumber).toBe(max);
  });

  it('sorts sequenceNumberForAllocation keys as Go marshals map keys', () => {
    const block = decodeValue(blockKey, calicoBlock);
    const text = encodeValue('IPAMBlock', {
      ...block,
      sequenceNumberForAllocation: { '10': 3n, '2': 2n, '0': 1n },
    });
    expect(text).toContain('"sequenceNumberForAllocation":{"0":1,"10":3,"2":2}');
  });

  it.each([
    [
      'affinity',
      { kind: 'BlockAffinity', host: 'n1', cidr: '10.0.0.0/26', affinityType: 'host' },
      '{"state":"confirmed","deleted":false}',
    ],
    [
      'handle',
      { kind: 'IPAMHandle', handleId: 'h' },
      '{"block":{"10.0.0.0/26":2},"deleted":false}',
    ],
    [
      'config',
      { kind: 'IPAMConfig' },
      '{"strict_affinity":true,"maxBlocksPerHost":4,"ipCooldownSeconds":30}',
    ],
  ] as const)('round-trips a Calico %s', (_, key, text) => {
    const k = key as DatastoreKey;
    expect(encodeValue(k.kind, decodeValue(k, text))).toBe(text);
  });

  it('reads an empty affinity state as confirmed, as Calico does', () => {
    const key: DatastoreKey<'BlockAffinity'> = {
      kind: 'BlockAffinity',
      host: 'n',
      cidr: '10.0.0.0/26',
      affinityType: 'host',
    };
    expect(decodeValue(key, '{}')).toEqual({ state: 'confirmed', deleted: false });
  });

  it('reads an empty stored affinity (Calico stored affinities without a value once) as {}', () => {
    const key: DatastoreKey<'BlockAffinity'> = {
      kind: 'BlockAffinity',
      host: 'n2',
      cidr: '10.1.0.0/26',
      affinityType: 'host',
    };
    expect(decodeValue(key, '')).toEqual({ state: 'confirmed', deleted: false });
  });

  it('keeps a handle whose block map is nil (null or absent) null while it is empty', () => {
    const key: DatastoreKey<'IPAMHandle'> = { kind: 'IPAMHandle', handleId: 'h' };
    expect(encodeValue('IPAMHandle', decodeValue(key, '{"block":null,"deleted":false}'))).toBe(
      '{"block":null,"deleted":false}',
    );
    const grown = { ...decodeValue(key, '{"deleted":false}'), block: { '10.0.0.0/26': 1 } };
    expect(encodeValue('IPAMHandle', grown)).toBe('{"block":{"10.0.0.0/26":1},"deleted":false}');
  });

  it('reads a reservation whose empty list Go omitted, and writes it back the same', () => {
    const key: DatastoreKey<'IPReservation'> = { kind: 'IPReservation', name: 'r' };
    const text =
      '{"kind":"IPReservation","apiVersion":"projectcalico.org/v3","metadata":{"name":"r"},"spec":{}}';
    const r = decodeValue(key, text);
    expect(r.spec.reservedCIDRs).toEqual([]);
    expect(encodeValue('IPReservation', r)).toBe(text);
  });

  it('writes resources with kind and apiVersion as Calico stores them', () => {
    const text = encodeValue('IPPool', { metadata: { name: 'p' }, spec: { cidr: '10.0.0.0/16' } });
    expect(JSON.parse(text)).toEqual({
      kind: 'IPPool',
      apiVersion: 'projectcalico.org/v3',
      metadata: { name: 'p' },
      spec: { cidr: '10.0.0.0/16' },
    });
  });

  it.each([
    ['not JSON', blockKey, '{"cidr":'],
    ['a string sequence number', blockKey, '{"cidr":"10.0.0.0/26","sequenceNumber":"1"}'],
    ['a negative sequence number', blockKey, '{"cidr":"10.0.0.0/26","sequenceNumber":-1}'],
    [
      'a non-numeric ordinal key',
      blockKey,
      '{"cidr":"10.0.0.0/26","sequenceNumberForAllocation":{"x":1}}',
    ],
    [
      'an allocation that is not an integer',
      blockKey,
      '{"cidr":"10.0.0.0/26","allocations":[0.5]}',
    ],
    [
      'an unknown affinity state',
      { kind: 'BlockAffinity', host: 'n', cidr: '10.0.0.0/26', affinityType: 'host' },
      '{"state":"maybe"}',
    ],
    ['a pool without a cidr', { kind: 'IPPool', name: 'p' }, '{"metadata":{"name":"p"},"spec":{}}'],
    // Found by value-codec.fuzz.test.ts (seed 1172658585): a bad escape threw a bare SyntaxError.
    ['a string with a bad escape', blockKey, '"\\ "'],
    [
      'a big-integer block with a bad escape',
      blockKey,
      '{"sequenceNumber":18446744073709551615,"cidr":"\\q"}',
    ],
  ] as const)('refuses %s with CorruptValue naming the key', (_, key, text) => {
    let error: unknown;
    try {
      decodeValue(key as DatastoreKey, text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(IpamError);
    expect(error).toMatchObject({ code: 'CorruptValue' });
    expect((error as Error).message).toContain('/calico/');
  });
});

// Found by value-codec.fuzz.test.ts: a block whose `cidr` is not a CIDR decoded, and the first
// use of it threw the accounting library's InvalidCidr instead of the store's CorruptValue; a block
// whose allocation pointed past its attributes decoded, and the next assignment's new attribute
// became that allocation's owner (the address showed up under the new handle); a block listing an
// ordinal both allocated (in expired cooldown) and free handed it out twice in one assignment.
describe('blocks that would hand out or misattribute addresses (fuzzing regressions)', () => {
  it.each([
    ['not a CIDR', 'garbage', 'is not a CIDR'],
    ['empty', '', 'is not a CIDR'],
    ['host bits set', '10.0.0.1/26', 'is not a CIDR'],
    ['larger than a block', '10.0.0.0/8', 'is larger than any block'],
    ['another block', '10.0.0.64/26', 'is not the block 10.0.0.0/26'],
    ['another family', 'fd00::/122', 'is not the block 10.0.0.0/26'],
  ])('refuses %s with CorruptValue', (_, cidr, says) => {
    const text = calicoBlock.replace('"cidr":"10.0.0.0/26"', `"cidr":${JSON.stringify(cidr)}`);
    expect(() => decodeValue(blockKey, text)).toThrow(IpamError);
    expect(() => decodeValue(blockKey, text)).toThrow(says);
  });

  it.each([
    ['fewer', 63],
    ['more', 70],
  ])('refuses a block with %s allocations than addresses with CorruptValue', (_, n) => {
    const o = JSON.parse(calicoBlock) as { allocations: (number | null)[]; unallocated: number[] };
    o.allocations = Array.from({ length: n }, (_, i) => (i === 0 ? 0 : null));
    o.unallocated = [];
    expect(() => decodeValue(blockKey, JSON.stringify(o))).toThrow(
      `allocations has ${n} entries, but block 10.0.0.0/26 has 64 addresses`,
    );
  });

  it.each([
    ['past the attributes', 1],
    ['negative', -1],
  ])('refuses an allocation pointing at an attribute %s with CorruptValue', (_, idx) => {
    const o = JSON.parse(calicoBlock) as { allocations: (number | null)[] };
    o.allocations[5] = idx;
    expect(() => decodeValue(blockKey, JSON.stringify(o))).toThrow(
      `allocations[5] points at attribute ${idx}, but the block has 1`,
    );
  });

  it.each([
    ['an allocated ordinal', [5], 'unallocated[0] lists ordinal 5, which is allocated'],
    ['an ordinal twice', [63, 63], 'unallocated[1] lists ordinal 63 twice'],
    ['a negative ordinal', [-1], "unallocated[0] is ordinal -1, outside the block's 64"],
    ['an ordinal past the block', [64], "unallocated[0] is ordinal 64, outside the block's 64"],
  ])('refuses a free queue listing %s with CorruptValue', (_, extra, says) => {
    const o = JSON.parse(calicoBlock) as { allocations: (number | null)[]; unallocated: number[] };
    o.allocations[5] = 0;
    o.allocations[63] = null;
    o.unallocated = [...extra];
    expect(() => decodeValue(blockKey, JSON.stringify(o))).toThrow(says);
  });

  it("accepts the key's block written in another form of the same CIDR", () => {
    const key: DatastoreKey<'IPAMBlock'> = { kind: 'IPAMBlock', cidr: 'fd00::/122' };
    const text = calicoBlock.replace('"cidr":"10.0.0.0/26"', '"cidr":"fd00:0:0::/122"');
    expect(decodeValue(key, text).cidr).toBe('fd00:0:0::/122');
  });
});

describe('parseJson', () => {
  it.each([
    ['9007199254740993', 9007199254740993n],
    ['-9007199254740993', -9007199254740993n],
    ['9007199254740991', 9007199254740991],
    ['1.5e3', 1500],
    ['"a\\"b"', 'a"b'],
    ['[1, {"k": null}]', [1, { k: null }]],
  ])('parses %s exactly', (text, expected) => {
    expect(parseJson(text)).toEqual(expected);
  });

  it.each(['{"a":1,}', '[1 2]', '01', 'tru', '"unterminated', '{} x'])('rejects %s', (text) => {
    expect(() => parseJson(text)).toThrow(SyntaxError);
  });
});
