import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cidrsOverlap } from './cidr.js';
import { filterOutDuplicates } from './filter-out-duplicates.js';
import { formatCidr } from './format-cidr.js';
import { parseCidr } from './parse-cidr.js';
import { UNIVERSES, cidrsIn, coverOf } from './test-arbitraries.js';

const parse = (list: string[]) => list.map((t) => parseCidr(t));

describe('filterOutDuplicates', () => {
  // Calico's addr_filter_test.go TestCIDRSliceFilter_filterOutDuplicates.
  it.each([
    [[], []],
    [['0.0.0.0/0', '10.0.0.0/8'], ['0.0.0.0/0']],
    [['::/0', 'f0f0::/16'], ['::/0']],
    [
      ['10.0.0.0/24', '10.0.0.0/25', '10.0.0.128/25', '11.0.0.0/8'],
      ['10.0.0.0/24', '11.0.0.0/8'],
    ],
    [
      ['10.0.0.0/24', '10.0.0.0/25', '10.0.0.128/25', '11.0.0.0/24'],
      ['10.0.0.0/24', '11.0.0.0/24'],
    ],
    [
      ['10.0.0.0/24', '10.0.0.0/25', '11.0.0.0/25', '10.0.0.0/25', '10.0.0.128/25', '11.0.0.0/8'],
      ['10.0.0.0/24', '11.0.0.0/8'],
    ],
  ])('%j -> %j, idempotently', (input, expected) => {
    const output = filterOutDuplicates(parse(input));
    expect(output.map(formatCidr)).toEqual(expected);
    expect(filterOutDuplicates(output).map(formatCidr)).toEqual(expected);
  });

  it('orders by size ascending, stably, and leaves the input alone', () => {
    const input = parse(['10.0.0.0/8', '192.168.0.0/24', '10.1.0.0/24', 'fd00::/120']);
    const copy = [...input];
    expect(filterOutDuplicates(input).map(formatCidr)).toEqual([
      '192.168.0.0/24',
      'fd00::/120',
      '10.0.0.0/8',
    ]);
    expect(input).toEqual(copy);
  });

  it.each(UNIVERSES)('returns disjoint CIDRs with the same union (IPv$version)', (u) => {
    fc.assert(
      fc.property(cidrsIn(u, 8), (cidrs) => {
        const out = filterOutDuplicates(cidrs);
        expect(coverOf(u, out)).toEqual(coverOf(u, cidrs));
        out.forEach((a, i) =>
          out.slice(i + 1).forEach((b) => expect(cidrsOverlap(a, b)).toBe(false)),
        );
        expect(filterOutDuplicates(out)).toEqual(out);
      }),
    );
  });
});
