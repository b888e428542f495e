import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createAddressFilter } from './address-filter.js';
import { cidrSize } from './cidr.js';
import type { Cidr } from './cidr.js';
import { filterOutDuplicates } from './filter-out-duplicates.js';
import { parseCidr } from './parse-cidr.js';
import { parseIp } from './parse-ip.js';
import {
  ALL_OFFSETS,
  UNIVERSES,
  cidrIn,
  cidrsIn,
  coverOf,
  ipAt,
  offsetsOf,
} from './test-arbitraries.js';

// Calico's addr_filter_test.go `cidrFilterTests`, row by row.
const calicoTable = [
  {
    filter: ['0.0.0.0/0'],
    ipsMatch: ['0.0.0.0', '255.255.255.255', '10.0.0.1'],
    cidrsMatch: ['0.0.0.0/0', '255.255.255.255/32', '10.0.0.0/8'],
    ipsNoMatch: [],
    cidrsNoMatch: [],
  },
  {
    filter: ['::/0'],
    ipsMatch: ['::', 'ffff::', 'cafe:f00d::'],
    cidrsMatch: ['::/0', 'ffff::/32', 'cafe:f00d::/96'],
    ipsNoMatch: [],
    cidrsNoMatch: [],
  },
  {
    filter: ['192.168.1.64/26', '192.168.1.0/26'],
    ipsMatch: ['192.168.1.0', '192.168.1.63', '192.168.1.64', '192.168.1.127'],
    cidrsMatch: [
      '192.168.1.64/26',
      '192.168.1.0/26',
      '192.168.1.0/25',
      '192.168.1.64/27',
      '192.168.1.96/27',
    ],
    ipsNoMatch: ['10.0.0.1', '0.0.0.0'],
    cidrsNoMatch: ['10.0.0.0/8', '0.0.0.0/32', '192.168.2.64/26', '192.168.1.0/24'],
  },
];

const rows = calicoTable.flatMap((t) => [
  ...t.ipsMatch.map((x) => [t.filter.join(','), 'IP', x, true] as const),
  ...t.ipsNoMatch.map((x) => [t.filter.join(','), 'IP', x, false] as const),
  ...t.cidrsMatch.map((x) => [t.filter.join(','), 'whole CIDR', x, true] as const),
  ...t.cidrsNoMatch.map((x) => [t.filter.join(','), 'whole CIDR', x, false] as const),
]);

// Calico's MatchesWholeCIDR, transcribed as an independent oracle for the set-based version.
function calicoMatchesWholeCidr(filter: readonly Cidr[], c: Cidr): boolean {
  const covers = (outer: Cidr, inner: Cidr) =>
    outer.version === inner.version &&
    outer.prefix <= inner.prefix &&
    (inner.base ^ outer.base) >> BigInt((outer.version === 4 ? 32 : 128) - outer.prefix) === 0n;
  if (filter.some((f) => covers(f, c))) return true;
  const inside = filter.filter((f) => covers(c, { ...f, prefix: f.version === 4 ? 32 : 128 }));
  if (inside.length === 0) return false;
  const total = filterOutDuplicates(inside).reduce((sum, f) => sum + cidrSize(f), 0n);
  return total === cidrSize(c);
}

describe('createAddressFilter', () => {
  it.each(rows)('filter [%s]: %s %s matches=%s (Calico table)', (filter, kind, target, want) => {
    const f = createAddressFilter(filter.split(',').map((t) => parseCidr(t)));
    const got =
      kind === 'IP' ? f.matchesIp(parseIp(target)) : f.matchesWholeCidr(parseCidr(target));
    expect(got).toBe(want);
  });

  it('an empty filter matches nothing', () => {
    const f = createAddressFilter([]);
    expect(f.matchesIp(parseIp('10.0.0.1'))).toBe(false);
    expect(f.matchesSome(parseCidr('0.0.0.0/0'))).toBe(false);
    expect(f.matchesWholeCidr(parseCidr('::/0'))).toBe(false);
    expect(f.matchesWholeCidr(parseCidr('10.0.0.0/32'))).toBe(false);
  });

  it('never matches across versions', () => {
    const f = createAddressFilter([parseCidr('::/0')]);
    expect(f.matchesIp(parseIp('10.0.0.1'))).toBe(false);
    expect(f.matchesSome(parseCidr('10.0.0.0/8'))).toBe(false);
    expect(f.matchesWholeCidr(parseCidr('10.0.0.0/32'))).toBe(false);
  });

  it.each(UNIVERSES)('agrees with brute force and with Calico’s algorithm (IPv$version)', (u) => {
    fc.assert(
      fc.property(cidrsIn(u, 8), cidrIn(u), fc.integer({ min: 0, max: 255 }), (filter, c, i) => {
        const f = createAddressFilter(filter);
        const covered = coverOf(u, filter);
        const inside = offsetsOf(u, c);
        expect(f.matchesIp(ipAt(u, i))).toBe(covered.has(i));
        expect(f.matchesSome(c)).toBe(inside.some((k) => covered.has(k)));
        expect(f.matchesWholeCidr(c)).toBe(inside.every((k) => covered.has(k)));
        expect(f.matchesWholeCidr(c)).toBe(calicoMatchesWholeCidr(filter, c));
        expect(ALL_OFFSETS.filter((k) => f.matchesIp(ipAt(u, k))).length).toBe(covered.size);
      }),
    );
  });
});
