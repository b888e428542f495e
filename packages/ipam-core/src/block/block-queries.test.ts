import { createAddressFilter, parseCidr } from '@netledger/accounting';
import { describe, expect, it } from 'vitest';
import { WINDOWS_RESERVED_HANDLE } from './block-attributes.js';
import {
  affinityString,
  allocationAttributesForIp,
  inUseIps,
  ipsByHandleInBlock,
  isBlockEmpty,
  numFreeAddresses,
  numReservedAddresses,
  parseAffinity,
  sequenceNumberForOrdinal,
} from './block-queries.js';
import { newBlock } from './new-block.js';
import { BIG_SEQUENCE, TestBlockBuilder, deepFreeze, thrown } from './test-block-builder.js';

const CIDR = '100.64.0.0/24';
const reservations = (...cidrs: string[]) =>
  createAddressFilter(cidrs.map((c) => parseCidr(c, { strict: false })));

// §5.2 item 50.
describe('isBlockEmpty', () => {
  it.each([
    ['a new block', () => newBlock({ cidr: CIDR, sequenceNumber: 1n }), true],
    [
      'only ordinal 255 held by the Windows-reserved handle',
      () => new TestBlockBuilder(CIDR).allocate([255], WINDOWS_RESERVED_HANDLE).build(),
      true,
    ],
    [
      'the Windows-reserved handle in upper case (compared lower-cased)',
      () =>
        new TestBlockBuilder(CIDR)
          .allocate([0, 255], WINDOWS_RESERVED_HANDLE.toUpperCase())
          .build(),
      true,
    ],
    [
      'a new block with Windows host-reserved ends',
      () =>
        newBlock({
          cidr: CIDR,
          sequenceNumber: 1n,
          hostReserved: {
            startOfBlock: 3,
            endOfBlock: 1,
            handle: WINDOWS_RESERVED_HANDLE,
            note: 'w',
          },
        }),
      true,
    ],
    [
      'ordinal 32 allocated to "alloc"',
      () => new TestBlockBuilder(CIDR).allocate([32], 'alloc').build(),
      false,
    ],
    [
      'an address in cooldown (a cooldown attribute has no handle)',
      () => new TestBlockBuilder(CIDR).coolDown([7], '2026-01-01T00:00:00Z').build(),
      false,
    ],
    [
      'another reserved handle',
      () => new TestBlockBuilder(CIDR).allocate([0], 'test-handle').build(),
      false,
    ],
    [
      'an allocation without a handle',
      () => new TestBlockBuilder(CIDR).allocate([9]).build(),
      false,
    ],
  ])('%s -> %s', (_, make, empty) => {
    expect(isBlockEmpty(deepFreeze(make()))).toBe(empty);
  });

  it('inUseIps lists allocated addresses in ordinal order, cooling ones included', () => {
    const b = new TestBlockBuilder(CIDR).allocate([20], 'a').allocate([10], 'b').build();
    expect(inUseIps(b)).toEqual(['100.64.0.10', '100.64.0.20']);
    const cooling = new TestBlockBuilder(CIDR)
      .allocate([10], 'a')
      .coolDown([3], '2026-01-01T00:00:00Z')
      .build();
    expect(inUseIps(cooling)).toEqual(['100.64.0.3', '100.64.0.10']);
  });
});

// §5.2 item 51.
describe('numFreeAddresses and numReservedAddresses', () => {
  const four = deepFreeze(new TestBlockBuilder(CIDR).allocate([10, 20, 210, 220], 'h').build());
  const two = deepFreeze(new TestBlockBuilder(CIDR).allocate([10, 20], 'h').build());

  it.each([
    ['{10, 20} allocated, no reservations', two, [], 254, 0],
    ['{10, 20, 210, 220} allocated, no reservations', four, [], 252, 0],
    ['{10, 20, 210, 220}, 100.64.0.128/25 reserved', four, ['100.64.0.128/25'], 126, 128],
    [
      '{10, 20, 210, 220}, 100.64.0.128/24 (the whole block) reserved',
      four,
      ['100.64.0.128/24'],
      0,
      256,
    ],
    ['{10, 20}, a reservation outside the block', two, ['100.65.0.0/24'], 254, 0],
    ['{10, 20}, 100.64.0.10/31 (one allocated, one free)', two, ['100.64.0.10/31'], 253, 2],
    [
      '{10, 20}, the block covered by two halves together',
      two,
      ['100.64.0.0/25', '100.64.0.128/25'],
      0,
      256,
    ],
  ])('%s: free %i, reserved %i', (_, block, cidrs, free, reserved) => {
    const filter = reservations(...cidrs);
    expect(numFreeAddresses(block, filter)).toBe(free);
    expect(numReservedAddresses(block, filter)).toBe(reserved);
  });
});

// §5.2 item 52.
describe('ipsByHandleInBlock', () => {
  const block = deepFreeze(
    new TestBlockBuilder(CIDR)
      .allocate([3], 'singleton')
      .allocate([10, 20], 'tens')
      .allocate([33], 'thirties')
      .allocate([34], 'thirties', { pod: 'other' })
      .allocate([40], 'dirty\rjunk')
      .coolDown([50], '2026-01-01T00:00:00Z')
      .allocate([60])
      .build(),
  );

  it.each([
    ['singleton', ['100.64.0.3']],
    ['tens', ['100.64.0.10', '100.64.0.20']],
    ['thirties', ['100.64.0.33', '100.64.0.34']],
    ['dirty', ['100.64.0.40']],
    ['unknown', []],
    ['', []],
  ])('%s -> %j', (handle, ips) => {
    expect(ipsByHandleInBlock(block, handle)).toEqual(ips);
  });
});

describe('allocationAttributesForIp', () => {
  const block = deepFreeze(
    new TestBlockBuilder(CIDR)
      .allocate([1], 'h1\rjunk', { pod: 'p', namespace: 'ns' })
      .coolDown([2], '2026-01-01T00:00:00Z')
      .build(),
  );

  it('returns a copy with the handle sanitized', () => {
    const attr = allocationAttributesForIp(block, '100.64.0.1');
    expect(attr).toEqual({ handleId: 'h1', activeOwnerAttrs: { pod: 'p', namespace: 'ns' } });
    expect(attr.activeOwnerAttrs).not.toBe(block.attributes[0]!.activeOwnerAttrs);
  });

  it.each([
    ['100.64.0.3', 'DoesNotExist'],
    ['100.64.0.2', 'IpInCooldown'],
    ['100.65.0.1', 'InvalidArgument'],
  ])('%s -> %s', (ip, code) => {
    expect(thrown(() => allocationAttributesForIp(block, ip))).toMatchObject({ code });
  });
});

describe('affinity strings and sequence numbers', () => {
  it.each([
    ['host:node1', { type: 'host', host: 'node1' }],
    ['virtual:lb-1', { type: 'virtual', host: 'lb-1' }],
    ['node1', undefined],
    [undefined, undefined],
  ])('parseAffinity(%s)', (text, parsed) => {
    expect(parseAffinity(text)).toEqual(parsed);
  });

  it('affinityString is the inverse of parseAffinity', () => {
    expect(affinityString('virtual', 'a.b-c_d')).toBe('virtual:a.b-c_d');
    expect(parseAffinity(affinityString('host', 'h'))).toEqual({ type: 'host', host: 'h' });
  });

  it('sequenceNumberForOrdinal is 0 for an ordinal without one', () => {
    const b = new TestBlockBuilder(CIDR).allocate([4], 'h').build();
    expect(sequenceNumberForOrdinal(b, 4)).toBe(BIG_SEQUENCE);
    expect(sequenceNumberForOrdinal(b, 5)).toBe(0n);
  });
});
