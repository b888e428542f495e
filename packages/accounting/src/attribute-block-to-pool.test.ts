import { describe, expect, it } from 'vitest';
import { attributeBlockToPool } from './attribute-block-to-pool.js';
import { parseCidr } from './parse-cidr.js';

const pools = [
  { name: 'narrow', cidr: parseCidr('10.0.0.0/26') },
  { name: 'wide', cidr: parseCidr('10.0.0.0/16') },
  { name: 'v6', cidr: parseCidr('fd00::/120') },
];

describe('attributeBlockToPool', () => {
  it.each([
    ['the first overlapping pool in list order', '10.0.0.0/26', 'narrow'],
    ['a pool smaller than the block still overlaps it', '10.0.0.0/24', 'narrow'],
    ['a later pool when the first does not overlap', '10.0.1.0/26', 'wide'],
    ['IPv6 pools for IPv6 blocks', 'fd00::40/122', 'v6'],
    ['no pool for an orphaned block', '192.168.0.0/26', undefined],
    ['no pool across versions', 'fd00:1::/122', undefined],
  ])('picks %s', (_name, block, want) => {
    expect(attributeBlockToPool(parseCidr(block), pools)?.name).toBe(want);
  });

  it('honours list order, not specificity', () => {
    const reversed = [...pools].reverse();
    expect(attributeBlockToPool(parseCidr('10.0.0.0/26'), reversed)?.name).toBe('wide');
    expect(attributeBlockToPool(parseCidr('10.0.0.0/26'), [])).toBeUndefined();
  });
});
