import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Cidr } from './cidr.js';
import { cidrSize, lastAddress } from './cidr.js';
import { formatCidr } from './format-cidr.js';
import { IpSet } from './ip-set.js';
import { parseCidr } from './parse-cidr.js';
import { parseIp } from './parse-ip.js';
import type { Universe } from './test-arbitraries.js';
import {
  ALL_OFFSETS,
  UNIVERSES,
  cidrIn,
  cidrsIn,
  coverOf,
  ipAt,
  offsetsOf,
} from './test-arbitraries.js';

// A set inside the universe, built from CIDRs and ranges so both constructors are exercised.
function setIn(u: Universe): fc.Arbitrary<{ set: IpSet; members: Set<number> }> {
  const range = fc
    .tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }))
    .map(([a, b]) => [Math.min(a, b), Math.max(a, b)] as const);
  return fc.tuple(cidrsIn(u), fc.array(range, { maxLength: 3 })).map(([cidrs, ranges]) => {
    let set = IpSet.fromCidrs(cidrs);
    const members = coverOf(u, cidrs);
    for (const [lo, hi] of ranges) {
      set = set.union(IpSet.fromRange(ipAt(u, lo), ipAt(u, hi)));
      for (let k = lo; k <= hi; k++) members.add(k);
    }
    return { set, members };
  });
}

function membersOf(u: Universe, set: IpSet): Set<number> {
  return new Set(ALL_OFFSETS.filter((k) => set.containsIp(ipAt(u, k))));
}

// Independent oracle for the fewest CIDRs: count aligned blocks inside S whose parent block is not.
function minimalCidrCount(members: Set<number>): number {
  let count = 0;
  for (let hostBits = 0; hostBits <= 8; hostBits++) {
    for (let start = 0; start < 256; start += 2 ** hostBits) {
      const inside = (s: number, n: number) =>
        Array.from({ length: n }, (_, k) => s + k).every((k) => members.has(k));
      if (!inside(start, 2 ** hostBits)) continue;
      const parentBits = hostBits + 1;
      const parentStart = start - (start % 2 ** parentBits);
      if (hostBits === 8 || !inside(parentStart, 2 ** parentBits)) count++;
    }
  }
  return count;
}

describe('IpSet against brute force', () => {
  it.each(UNIVERSES)('union, difference, intersection and size (IPv$version)', (u) => {
    fc.assert(
      fc.property(setIn(u), setIn(u), (a, b) => {
        const cases: [IpSet, (k: number) => boolean][] = [
          [a.set.union(b.set), (k) => a.members.has(k) || b.members.has(k)],
          [a.set.difference(b.set), (k) => a.members.has(k) && !b.members.has(k)],
          [a.set.intersection(b.set), (k) => a.members.has(k) && b.members.has(k)],
        ];
        expect(membersOf(u, a.set)).toEqual(a.members);
        expect(a.set.size()).toBe(BigInt(a.members.size));
        for (const [result, oracle] of cases) {
          const expected = new Set(ALL_OFFSETS.filter(oracle));
          expect(membersOf(u, result)).toEqual(expected);
          expect(result.size()).toBe(BigInt(expected.size));
          expect(result.isEmpty()).toBe(expected.size === 0);
        }
      }),
    );
  });

  it.each(UNIVERSES)('ranges are sorted, disjoint, non-adjacent and exact (IPv$version)', (u) => {
    fc.assert(
      fc.property(setIn(u), ({ set, members }) => {
        const ranges = set.ranges();
        const covered = new Set<number>();
        ranges.forEach((r, i) => {
          expect(r.from.version).toBe(u.version);
          expect(r.from.value).toBeLessThanOrEqual(r.to.value);
          if (i > 0) expect(r.from.value).toBeGreaterThan(ranges[i - 1]!.to.value + 1n);
          for (let v = r.from.value; v <= r.to.value; v++) covered.add(Number(v - u.base));
        });
        expect(covered).toEqual(members);
      }),
    );
  });

  it.each(UNIVERSES)('toCidrs covers exactly, disjointly and minimally (IPv$version)', (u) => {
    fc.assert(
      fc.property(setIn(u), ({ set, members }) => {
        const cidrs = set.toCidrs();
        const offsets = cidrs.flatMap((c) => offsetsOf(u, c));
        expect(offsets.length).toBe(new Set(offsets).size);
        expect(new Set(offsets)).toEqual(members);
        expect(cidrs.length).toBe(minimalCidrCount(members));
        for (const c of cidrs) expect(c.base % cidrSize(c)).toBe(0n);
        expect(IpSet.fromCidrs(cidrs).ranges()).toEqual(set.ranges());
      }),
    );
  });

  it.each(UNIVERSES)('containsCidr and overlapsCidr (IPv$version)', (u) => {
    fc.assert(
      fc.property(setIn(u), cidrIn(u), ({ set, members }, c) => {
        const inside = offsetsOf(u, c);
        expect(set.containsCidr(c)).toBe(inside.every((k) => members.has(k)));
        expect(set.overlapsCidr(c)).toBe(inside.some((k) => members.has(k)));
      }),
    );
  });
});

describe('IpSet', () => {
  const c = (text: string): Cidr => parseCidr(text);

  it('keeps versions apart and lists IPv4 first', () => {
    const set = IpSet.fromCidrs([c('fd00::/127'), c('10.0.0.0/31'), c('10.0.0.2/31')]);
    expect(set.toCidrs().map(formatCidr)).toEqual(['10.0.0.0/30', 'fd00::/127']);
    expect(set.size()).toBe(6n);
    expect(set.containsIp(parseIp('::ffff:10.0.0.1'))).toBe(false);
    const v4Only = set.difference(IpSet.fromCidrs([c('::/0')]));
    expect(v4Only.toCidrs().map(formatCidr)).toEqual(['10.0.0.0/30']);
  });

  it('counts huge IPv6 sets exactly', () => {
    const all = IpSet.fromCidrs([c('::/0')]);
    expect(all.size()).toBe(2n ** 128n);
    const holed = all.difference(IpSet.fromCidrs([c('fd00::/8')]));
    expect(holed.size()).toBe(2n ** 128n - 2n ** 120n);
    expect(holed.toCidrs()).toHaveLength(8);
    const rebuilt = IpSet.fromCidrs(holed.toCidrs()).union(IpSet.fromCidrs([c('fd00::/8')]));
    expect(rebuilt.ranges()).toEqual(all.ranges());
  });

  it('merges adjacent ranges at the top of the address space', () => {
    const top = c('255.255.255.254/31');
    const set = IpSet.fromRange(parseIp('255.255.255.0'), parseIp('255.255.255.253')).union(
      IpSet.fromCidrs([top]),
    );
    expect(set.toCidrs().map(formatCidr)).toEqual(['255.255.255.0/24']);
    expect(set.ranges()).toEqual([{ from: parseIp('255.255.255.0'), to: lastAddress(top) }]);
  });

  it('empty is empty', () => {
    expect(IpSet.empty().isEmpty()).toBe(true);
    expect(IpSet.empty().size()).toBe(0n);
    expect(IpSet.empty().toCidrs()).toEqual([]);
    expect(IpSet.empty().containsIp(parseIp('10.0.0.1'))).toBe(false);
    expect(IpSet.fromCidrs([c('10.0.0.0/32')]).isEmpty()).toBe(false);
  });

  it('fromRange rejects mixed versions and reversed ends', () => {
    expect(() => IpSet.fromRange(parseIp('10.0.0.1'), parseIp('::1'))).toThrow(
      expect.objectContaining({ code: 'InvalidIp' }),
    );
    expect(() => IpSet.fromRange(parseIp('10.0.0.2'), parseIp('10.0.0.1'))).toThrow(
      expect.objectContaining({ code: 'OutOfRange' }),
    );
    expect(
      IpSet.fromRange(parseIp('10.0.0.1'), parseIp('10.0.0.6')).toCidrs().map(formatCidr),
    ).toEqual(['10.0.0.1/32', '10.0.0.2/31', '10.0.0.4/31', '10.0.0.6/32']);
  });
});
