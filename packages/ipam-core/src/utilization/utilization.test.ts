import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AllocationBlock } from '../model/block.js';
import type { IPReservation } from '../model/resources.js';
import { testPool } from '../pools/test-pools.js';
import { computeUtilization, numReservedIpsInCidr } from './utilization.js';

/** A block of `size` ordinals with `allocated` ordinals taken, the rest free in order. */
function block(cidr: string, size: number, allocated: readonly number[]): AllocationBlock {
  const taken = new Set(allocated);
  return {
    cidr,
    allocations: Array.from({ length: size }, (_, i) => (taken.has(i) ? 0 : null)),
    unallocated: Array.from({ length: size }, (_, i) => i).filter((i) => !taken.has(i)),
    attributes: allocated.length > 0 ? [{}] : [],
    sequenceNumber: 0n,
    sequenceNumberForAllocation: {},
    deleted: false,
  };
}

const reservation = (reservedCIDRs: string[], name = 'r'): IPReservation => ({
  metadata: { name },
  spec: { reservedCIDRs },
});

// §5.2 item 59: pool 10.0.0.0/24, 10.0.0.5 assigned in block 10.0.0.0/26.
describe('computeUtilization with reservations', () => {
  const pools = [testPool('pool1', { cidr: '10.0.0.0/24' })];
  const blocks = [block('10.0.0.0/26', 64, [5])];
  it.each([
    [['10.0.0.32/30'], [256, 1, 4, 251], [64, 1, 4, 59]],
    [['10.0.0.128/25'], [256, 1, 128, 127], [64, 1, 0, 63]],
    [['10.0.0.5/32'], [256, 1, 1, 255], [64, 1, 1, 63]],
    [
      ['10.0.0.0/25', '10.0.0.5/32', '10.0.0.64/26'],
      [256, 1, 128, 128],
      [64, 1, 64, 0],
    ],
  ])('reservations %j: pool %j, block %j', (reserved, [capacity, inUse, res, available], b) => {
    const [pool, ...orphans] = computeUtilization({
      pools,
      blocks,
      reservations: [reservation(reserved)],
    });
    expect(pool).toEqual({
      name: 'pool1',
      cidr: '10.0.0.0/24',
      capacity,
      inUse,
      reserved: res,
      available,
      blocks: [
        { cidr: '10.0.0.0/26', capacity: b[0], inUse: b[1], reserved: b[2], available: b[3] },
      ],
    });
    expect(orphans.map((o) => o.cidr)).toEqual(['0.0.0.0/0', '::/0']);
  });

  it('counts a reservation split across several IPReservations once', () => {
    const [pool] = computeUtilization({
      pools,
      blocks,
      reservations: [
        reservation(['10.0.0.0/25'], 'a'),
        reservation(['10.0.0.5', ' bogus '], 'b'),
        reservation(['10.0.0.64/26'], 'c'),
      ],
    });
    expect(pool).toMatchObject({
      reserved: 128,
      available: 128,
      blocks: [{ reserved: 64, available: 0 }],
    });
  });
});

describe('computeUtilization attribution', () => {
  const pools = [
    testPool('pool1', { cidr: '10.0.0.0/24' }),
    testPool('pool2', { cidr: '20.0.0.0/24', disabled: true }),
    testPool('six', { cidr: 'fd80:24e2:f998:72d6::/120' }),
  ];
  const blocks = [
    block('10.0.0.0/26', 64, [1]),
    block('11.0.0.0/26', 64, [0, 1]),
    block('fd80:24e2:f998:72d6::/122', 64, [0, 1, 2]),
    block('fd99::/122', 64, [7]),
    block('20.0.0.64/26', 64, []),
  ];

  it('reports every pool (disabled ones too), then v4 and v6 orphans last', () => {
    const out = computeUtilization({ pools, blocks, reservations: [] });
    expect(out.map((p) => [p.name, p.cidr, p.blocks.map((b) => b.cidr)])).toEqual([
      ['pool1', '10.0.0.0/24', ['10.0.0.0/26']],
      ['pool2', '20.0.0.0/24', ['20.0.0.64/26']],
      ['six', 'fd80:24e2:f998:72d6::/120', ['fd80:24e2:f998:72d6::/122']],
      ['orphaned allocation blocks', '0.0.0.0/0', ['11.0.0.0/26']],
      ['orphaned allocation blocks', '::/0', ['fd99::/122']],
    ]);
    expect(out[3]).toMatchObject({
      capacity: 0,
      inUse: 0,
      reserved: 0,
      available: 0,
      blocks: [{ capacity: 64, inUse: 2, available: 62 }],
    });
    expect(out[4]!.blocks).toEqual([
      { cidr: 'fd99::/122', capacity: 64, inUse: 1, reserved: 0, available: 63 },
    ]);
    expect(out[1]).toMatchObject({ capacity: 256, inUse: 0, available: 256 });
    expect(out[2]).toMatchObject({ capacity: 256, inUse: 3, available: 253 });
  });

  // §5.2 item 11: a pool filter leaves other pools' blocks, and the orphans, out.
  it.each([
    [['20.0.0.0/24'], ['pool2']],
    [['pool1'], ['pool1']],
    [
      ['six', '10.0.0.7/24'],
      ['pool1', 'six'],
    ],
    [['nope'], []],
  ])('with wanted %j reports %j only', (wanted, names) => {
    const out = computeUtilization({ pools, blocks, reservations: [], wanted });
    expect(out.map((p) => p.name)).toEqual(names);
    expect(out.flatMap((p) => p.blocks).every((b) => !b.cidr.startsWith('11.'))).toBe(true);
  });

  it('gives a block to the first overlapping pool in list order', () => {
    const nested = [
      testPool('outer', { cidr: '10.0.0.0/16' }),
      testPool('inner', { cidr: '10.0.0.0/24' }),
    ];
    const out = computeUtilization({
      pools: nested,
      blocks: [block('10.0.0.0/26', 64, [])],
      reservations: [],
    });
    expect(out[0]!.blocks).toHaveLength(1);
    expect(out[1]!.blocks).toHaveLength(0);
  });

  it('counts in-use addresses from the unallocated queue (cooldown counts as in use)', () => {
    const b = { ...block('10.0.0.0/30', 4, [0, 1]), allocations: [0, 0, null, null] };
    const [p] = computeUtilization({
      pools: [testPool('p', { cidr: '10.0.0.0/24', blockSize: 30 })],
      blocks: [{ ...b, unallocated: [3] }],
      reservations: [],
    });
    expect(p!.blocks[0]).toMatchObject({ capacity: 4, inUse: 3, available: 1 });
  });

  it('reports bigint counts for huge IPv6 pools', () => {
    const [p] = computeUtilization({
      pools: [testPool('big', { cidr: 'fd00::/64' })],
      blocks: [block('fd00::/122', 64, [0])],
      reservations: [reservation(['fd00::/65'])],
    });
    expect(p).toMatchObject({
      capacity: 2n ** 64n,
      inUse: 1,
      reserved: 2n ** 63n,
      available: 2n ** 63n,
    });
    expect(p!.blocks[0]).toMatchObject({ reserved: 64, available: 0 });
  });
});

describe('block counts (property)', () => {
  it('available = unallocated ordinals outside reservations; reserved = reserved ordinals', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 63 }), { maxLength: 64 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 24, max: 32 })), {
          maxLength: 4,
        }),
        (allocated, res) => {
          const cidrs = res.map(([host, prefix]) => {
            const size = 2 ** (32 - prefix);
            return `10.0.0.${Math.floor(host / size) * size}/${prefix}`;
          });
          const inRes = (ord: number): boolean =>
            res.some(([host, prefix]) => {
              const size = 2 ** (32 - prefix);
              return (
                ord >= Math.floor(host / size) * size && ord < Math.floor(host / size) * size + size
              );
            });
          const [p] = computeUtilization({
            pools: [testPool('p', { cidr: '10.0.0.0/24' })],
            blocks: [block('10.0.0.0/26', 64, allocated)],
            reservations: [reservation(cidrs)],
          });
          const ords = Array.from({ length: 64 }, (_, i) => i);
          expect(p!.blocks[0]).toEqual({
            cidr: '10.0.0.0/26',
            capacity: 64,
            inUse: allocated.length,
            reserved: ords.filter(inRes).length,
            available: ords.filter((o) => !allocated.includes(o) && !inRes(o)).length,
          });
          const all = Array.from({ length: 256 }, (_, i) => i);
          expect(p!.reserved).toBe(all.filter(inRes).length);
          expect(p!.available).toBe(
            all.filter((o) => !inRes(o) && !(o < 64 && allocated.includes(o))).length,
          );
        },
      ),
    );
  });
});

describe('numReservedIpsInCidr', () => {
  it.each<[string, string[][], number | bigint]>([
    ['10.0.0.0/24', [['10.0.0.32/30']], 4],
    ['10.0.0.0/24', [['10.0.0.0/25', '10.0.0.5'], ['10.0.0.0/26']], 128],
    ['10.0.0.0/24', [['10.0.0.0/16']], 256],
    ['10.0.0.0/24', [['11.0.0.0/8', 'fd00::/8']], 0],
    ['fd00::/8', [['fd00::/9']], 2n ** 119n],
    ['10.0.0.0/24', [['garbage', '10.0.0.1']], 1],
  ])('%s with %j -> %s', (cidr, lists, expected) => {
    expect(
      numReservedIpsInCidr(
        cidr,
        lists.map((l, i) => reservation(l, `r${i}`)),
      ),
    ).toBe(expected);
  });
  it('refuses a malformed CIDR', () => {
    expect(() => numReservedIpsInCidr('10.0.0/24', [])).toThrow(
      expect.objectContaining({ code: 'InvalidArgument' }),
    );
  });
});
