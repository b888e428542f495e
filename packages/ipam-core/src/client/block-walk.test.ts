import { cidrContainsCidr, parseCidr } from '@netledger/accounting';
import { describe, expect, it } from 'vitest';
import {
  fnv1Hash32,
  orderByBlockWalk,
  randomBlockWalk,
  sequentialBlockWalk,
} from './block-walk.js';

describe('fnv1Hash32 (FNV-1, not FNV-1a, as Go hash/fnv.New32)', () => {
  it.each([
    ['', 0x811c9dc5],
    ['a', 0x050c5d7e],
    ['foobar', 0x31f0b262],
    ['b', 0x050c5d7d],
    ['foo', 0x408f5e13],
  ])('%j -> %i', (text, hash) => {
    expect(fnv1Hash32(text)).toBe(hash);
  });

  it('hashes UTF-8 bytes, not UTF-16 code units', () => {
    // "é" is 0xC3 0xA9 in UTF-8.
    let h = 0x811c9dc5;
    for (const byte of [0xc3, 0xa9]) h = ((Math.imul(h, 0x01000193) >>> 0) ^ byte) >>> 0;
    expect(fnv1Hash32('é')).toBe(h);
  });
});

// §5.2 item 57 (randomblock_test.go): coverage, containment and count.
const PAIRS: [string, number, number][] = [
  ['10.10.0.0/24', 26, 4],
  ['fd80:24e2:f998:72d6::/120', 122, 4],
  ['10.10.0.0/16', 20, 16],
  ['fd80:24e2:f998:72d6::/114', 116, 4],
  ['10.10.0.0/24', 32, 256],
  ['fd80:24e2:f998:72d6::/120', 128, 256],
];

/** The first block of a walk, without walking the rest. */
function first(walk: Iterable<string>): string | undefined {
  for (const block of walk) return block;
  return undefined;
}

describe('randomBlockWalk', () => {
  it.each(PAIRS)(
    '%s bs%i: exactly %i blocks, each once, each inside the pool',
    (poolCidr, blockSize, count) => {
      const walk = [...randomBlockWalk({ poolCidr, blockSize, host: 'node-1', timeSeed: 7 })];
      expect(walk).toHaveLength(count);
      expect(new Set(walk).size).toBe(count);
      expect(new Set(walk)).toEqual(new Set(sequentialBlockWalk(poolCidr, blockSize)));
      const pool = parseCidr(poolCidr);
      for (const b of walk) {
        const c = parseCidr(b);
        expect(c.prefix).toBe(blockSize);
        expect(cidrContainsCidr(pool, c)).toBe(true);
      }
    },
  );

  it.each(PAIRS)('%s bs%i: a wrap-around walk from the start offset', (poolCidr, blockSize) => {
    const seq = [...sequentialBlockWalk(poolCidr, blockSize)];
    const walk = [...randomBlockWalk({ poolCidr, blockSize, host: 'node-1', timeSeed: 7 })];
    const start = seq.indexOf(walk[0]!);
    expect(walk).toEqual([...seq.slice(start), ...seq.slice(0, start)]);
  });

  it('the same host always walks the same way; different hosts diverge', () => {
    const walk = (host: string, timeSeed = 1) =>
      [...randomBlockWalk({ poolCidr: '10.0.0.0/16', blockSize: 26, host, timeSeed })].join(',');
    expect(walk('node-a')).toBe(walk('node-a'));
    expect(walk('node-a', 1)).toBe(walk('node-a', 99)); // the time seed only matters for /32 blocks
    const starts = new Set(
      Array.from({ length: 20 }, (_, i) =>
        first(
          randomBlockWalk({
            poolCidr: '10.0.0.0/16',
            blockSize: 26,
            host: `node-${i}`,
            timeSeed: 1,
          }),
        ),
      ),
    );
    expect(starts.size).toBeGreaterThan(15);
  });

  it('full-length blocks are seeded from the time seed, not the host', () => {
    const start = (host: string, timeSeed: number) =>
      first(randomBlockWalk({ poolCidr: '10.0.0.0/16', blockSize: 32, host, timeSeed }));
    expect(start('a', 5)).toBe(start('b', 5));
    const seeds = new Set(Array.from({ length: 10 }, (_, i) => start('a', i)));
    expect(seeds.size).toBeGreaterThan(5);
  });
});

describe('orderByBlockWalk', () => {
  it.each(PAIRS)('%s bs%i: agrees with the walk on any subset', (poolCidr, blockSize) => {
    const options = { poolCidr, blockSize, host: 'node-7', timeSeed: 3 };
    const walk = [...randomBlockWalk(options)];
    const subset = walk.filter((_, i) => i % 3 !== 1).reverse();
    expect(orderByBlockWalk(options, subset)).toEqual(walk.filter((_, i) => i % 3 !== 1));
  });

  it('drops blocks outside the pool, of another size or another family', () => {
    const options = { poolCidr: '10.0.0.0/24', blockSize: 26, host: 'h', timeSeed: 0 };
    const walk = [...randomBlockWalk(options)];
    expect(
      orderByBlockWalk(options, [
        '10.0.1.0/26',
        '10.0.0.0/27',
        'fd00::/122',
        ...walk.slice().reverse(),
      ]),
    ).toEqual(walk);
  });
});
