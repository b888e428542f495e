import { AccountingError } from './accounting-error.js';
import { cidrSize, lastAddress } from './cidr.js';
import type { Cidr } from './cidr.js';
import { addressBits } from './ip-address.js';
import type { IpAddress, IpVersion } from './ip-address.js';

/** An inclusive address range of one version, as returned by {@link IpSet.ranges}. */
export interface IpRange {
  readonly from: IpAddress;
  readonly to: IpAddress;
}

// Inclusive [lo, hi]; lists are sorted, disjoint and non-adjacent (adjacent ones are merged).
interface Interval {
  readonly lo: bigint;
  readonly hi: bigint;
}
type Intervals = readonly Interval[];

const VERSIONS = [4, 6] as const;

/**
 * An immutable set of IP addresses of both versions, stored per version as sorted, disjoint,
 * merged inclusive intervals. All operations return new sets; sizes are exact bigints.
 */
export class IpSet {
  readonly #v4: Intervals;
  readonly #v6: Intervals;

  private constructor(v4: Intervals, v6: Intervals) {
    this.#v4 = v4;
    this.#v6 = v6;
  }

  /** The set with no addresses. */
  static empty(): IpSet {
    return EMPTY;
  }

  /** The union of the given CIDRs (any versions, overlaps and duplicates allowed). */
  static fromCidrs(cidrs: Iterable<Cidr>): IpSet {
    const v4: Interval[] = [];
    const v6: Interval[] = [];
    for (const c of cidrs) {
      (c.version === 4 ? v4 : v6).push({ lo: c.base, hi: lastAddress(c).value });
    }
    return new IpSet(normalize(v4), normalize(v6));
  }

  /**
   * The addresses from `from` to `to` inclusive. Throws `InvalidIp` when the versions differ and
   * `OutOfRange` when `from` is above `to`.
   */
  static fromRange(from: IpAddress, to: IpAddress): IpSet {
    if (from.version !== to.version) {
      throw new AccountingError('InvalidIp', 'range ends are of different IP versions');
    }
    if (from.value > to.value) {
      throw new AccountingError('OutOfRange', 'range start is above its end');
    }
    const one = [{ lo: from.value, hi: to.value }];
    return from.version === 4 ? new IpSet(one, []) : new IpSet([], one);
  }

  /** Addresses in this set or in `o`. */
  union(o: IpSet): IpSet {
    return new IpSet(normalize([...this.#v4, ...o.#v4]), normalize([...this.#v6, ...o.#v6]));
  }

  /** Addresses in this set and not in `o`. */
  difference(o: IpSet): IpSet {
    return new IpSet(subtract(this.#v4, o.#v4), subtract(this.#v6, o.#v6));
  }

  /** Addresses in both this set and `o`. */
  intersection(o: IpSet): IpSet {
    return new IpSet(intersect(this.#v4, o.#v4), intersect(this.#v6, o.#v6));
  }

  /** Exact number of addresses in the set (both versions together). */
  size(): bigint {
    let total = 0n;
    for (const r of [...this.#v4, ...this.#v6]) total += r.hi - r.lo + 1n;
    return total;
  }

  /** Whether the set holds no address. */
  isEmpty(): boolean {
    return this.#v4.length === 0 && this.#v6.length === 0;
  }

  /** Whether `ip` is in the set. */
  containsIp(ip: IpAddress): boolean {
    const found = findFirstEndingAtOrAfter(this.#of(ip.version), ip.value);
    return found !== undefined && found.lo <= ip.value;
  }

  /** Whether every address of `c` is in the set. */
  containsCidr(c: Cidr): boolean {
    const found = findFirstEndingAtOrAfter(this.#of(c.version), c.base);
    return found !== undefined && found.lo <= c.base && found.hi >= lastAddress(c).value;
  }

  /** Whether at least one address of `c` is in the set. */
  overlapsCidr(c: Cidr): boolean {
    const found = findFirstEndingAtOrAfter(this.#of(c.version), c.base);
    return found !== undefined && found.lo <= lastAddress(c).value;
  }

  /** The set as maximal inclusive ranges: IPv4 first, then IPv6, each ascending. */
  ranges(): readonly IpRange[] {
    return VERSIONS.flatMap((version) =>
      this.#of(version).map((r) => ({
        from: { version, value: r.lo },
        to: { version, value: r.hi },
      })),
    );
  }

  /** The fewest CIDRs that cover exactly this set: IPv4 first, then IPv6, each ascending. */
  toCidrs(): Cidr[] {
    return VERSIONS.flatMap((version) =>
      this.#of(version).flatMap((r) => rangeToCidrs(version, r)),
    );
  }

  #of(version: IpVersion): Intervals {
    return version === 4 ? this.#v4 : this.#v6;
  }
}

const EMPTY = IpSet.fromCidrs([]);

function normalize(list: Interval[]): Intervals {
  if (list.length < 2) return list;
  const sorted = [...list].sort((a, b) => (a.lo < b.lo ? -1 : a.lo > b.lo ? 1 : 0));
  const out: Interval[] = [];
  let cur = sorted[0]!;
  for (const next of sorted.slice(1)) {
    if (next.lo <= cur.hi + 1n) {
      if (next.hi > cur.hi) cur = { lo: cur.lo, hi: next.hi };
    } else {
      out.push(cur);
      cur = next;
    }
  }
  out.push(cur);
  return out;
}

function subtract(a: Intervals, b: Intervals): Intervals {
  const out: Interval[] = [];
  let j = 0;
  for (const r of a) {
    let lo = r.lo;
    while (j < b.length && b[j]!.hi < lo) j++;
    // Walk the cuts that start inside r; the last one may reach past r into the next interval.
    let k = j;
    while (k < b.length && b[k]!.lo <= r.hi) {
      const cut = b[k]!;
      if (cut.lo > lo) out.push({ lo, hi: cut.lo - 1n });
      if (cut.hi >= r.hi) {
        lo = r.hi + 1n;
        break;
      }
      lo = cut.hi + 1n;
      k++;
    }
    if (lo <= r.hi) out.push({ lo, hi: r.hi });
  }
  return out;
}

function intersect(a: Intervals, b: Intervals): Intervals {
  const out: Interval[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    const lo = x.lo > y.lo ? x.lo : y.lo;
    const hi = x.hi < y.hi ? x.hi : y.hi;
    if (lo <= hi) out.push({ lo, hi });
    if (x.hi < y.hi) i++;
    else j++;
  }
  return out;
}

// Binary search: the first interval whose end is >= value, if any.
function findFirstEndingAtOrAfter(list: Intervals, value: bigint): Interval | undefined {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]!.hi < value) lo = mid + 1;
    else hi = mid;
  }
  return list[lo];
}

// Greedy split: at each step take the largest aligned block that starts at lo and fits.
function rangeToCidrs(version: IpVersion, r: Interval): Cidr[] {
  const bits = addressBits(version);
  const out: Cidr[] = [];
  let lo = r.lo;
  while (lo <= r.hi) {
    let hostBits = 0;
    while (
      hostBits < bits &&
      (lo & ((1n << BigInt(hostBits + 1)) - 1n)) === 0n &&
      lo + (1n << BigInt(hostBits + 1)) - 1n <= r.hi
    ) {
      hostBits++;
    }
    const cidr: Cidr = { version, base: lo, prefix: bits - hostBits };
    out.push(cidr);
    lo += cidrSize(cidr);
  }
  return out;
}
