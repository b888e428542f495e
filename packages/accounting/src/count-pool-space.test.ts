import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countPoolSpace } from './count-pool-space.js';
import { numReservedIpsInCidr } from './num-reserved-ips-in-cidr.js';
import { parseCidr } from './parse-cidr.js';
import { UNIVERSES, cidrIn, cidrsIn, coverOf, offsetsOf } from './test-arbitraries.js';

const parse = (list: readonly string[]) => list.map((t) => parseCidr(t));

describe('countPoolSpace', () => {
  // Calico's reserved_test.go TestCountPoolSpace, except the last row: Calico saturates at
  // MaxInt there, we return the exact count.
  it.each([
    ['no reservations and no blocks', '10.0.0.0/24', [], [], 256n, 0n, 256n],
    ['one reservation', '10.0.0.0/24', ['10.0.0.32/30'], [], 256n, 4n, 252n],
    [
      'overlapping reservations',
      '10.0.0.0/24',
      ['10.0.0.0/25', '10.0.0.5/32', '10.0.0.64/26', '10.0.0.0/25'],
      [],
      256n,
      128n,
      128n,
    ],
    ['reservation covering the whole pool', '10.0.0.0/24', ['10.0.0.0/16'], [], 256n, 256n, 0n],
    [
      'reservation outside the pool',
      '10.0.0.0/24',
      ['192.168.0.0/24', 'fd00::/120'],
      [],
      256n,
      0n,
      256n,
    ],
    [
      'blocks carved from the pool',
      '10.0.0.0/24',
      [],
      ['10.0.0.0/26', '10.0.0.64/26'],
      256n,
      0n,
      128n,
    ],
    [
      'reservation inside a block',
      '10.0.0.0/24',
      ['10.0.0.32/30'],
      ['10.0.0.0/26'],
      256n,
      4n,
      192n,
    ],
    [
      'reservation outside every block',
      '10.0.0.0/24',
      ['10.0.0.128/25'],
      ['10.0.0.0/26'],
      256n,
      128n,
      64n,
    ],
    ['IPv6 pool', 'fd00::/120', ['fd00::/126'], [], 256n, 4n, 252n],
    ['pool too big for an int (exact, not MaxInt)', 'fd00::/8', [], [], 2n ** 120n, 0n, 2n ** 120n],
  ] as const)('%s', (_name, pool, reservations, blocks, capacity, reserved, outside) => {
    expect(
      countPoolSpace({
        pool: parseCidr(pool),
        reservations: parse(reservations),
        blocks: parse(blocks),
      }),
    ).toEqual({ capacity, reserved, availableOutsideBlocks: outside });
  });

  it('counts a huge IPv6 pool with reservations and blocks exactly', () => {
    const space = countPoolSpace({
      pool: parseCidr('fd00::/48'),
      reservations: parse(['fd00::/64', 'fd00::5/128', 'fd00:0:0:1::/64']),
      blocks: parse(['fd00:0:0:1::/122', 'fd00:0:0:2::/122']),
    });
    expect(space).toEqual({
      capacity: 2n ** 80n,
      reserved: 2n ** 65n,
      availableOutsideBlocks: 2n ** 80n - 2n ** 65n - 64n,
    });
  });

  it.each(UNIVERSES)('agrees with brute force (IPv$version)', (u) => {
    fc.assert(
      fc.property(cidrIn(u), cidrsIn(u), cidrsIn(u), (pool, reservations, blocks) => {
        const inPool = offsetsOf(u, pool);
        const reservedSet = coverOf(u, reservations);
        const blockSet = coverOf(u, blocks);
        const reserved = inPool.filter((k) => reservedSet.has(k)).length;
        const outside = inPool.filter((k) => !reservedSet.has(k) && !blockSet.has(k)).length;
        expect(countPoolSpace({ pool, reservations, blocks })).toEqual({
          capacity: BigInt(inPool.length),
          reserved: BigInt(reserved),
          availableOutsideBlocks: BigInt(outside),
        });
        expect(numReservedIpsInCidr(pool, reservations)).toBe(BigInt(reserved));
      }),
    );
  });
});

describe('numReservedIpsInCidr', () => {
  // Block-level rows of Calico's GetUtilization-with-reservations test (block 10.0.0.0/26).
  it.each([
    [['10.0.0.32/30'], 4n],
    [['10.0.0.128/25'], 0n],
    [['10.0.0.5/32'], 1n],
    [['10.0.0.0/25', '10.0.0.5/32', '10.0.0.64/26'], 64n],
    [[], 0n],
    [['fd00::/8'], 0n],
  ])('block 10.0.0.0/26 with %j reserves %s', (reservations, want) => {
    expect(numReservedIpsInCidr(parseCidr('10.0.0.0/26'), parse(reservations))).toBe(want);
  });

  it('is exact for IPv6 beyond 2^63', () => {
    expect(numReservedIpsInCidr(parseCidr('::/0'), parse(['::/1', '8000::/2']))).toBe(
      2n ** 127n + 2n ** 126n,
    );
  });
});
