import type { IpFamily } from './address.js';
import type { Lease, LeaseBook, LeaseKind } from './lease.js';
import type { PoolFamily, PoolRegistry, PoolSpec } from './pool.js';
import { poolCapacity, toPoolSpec } from './pool.js';

/** A lease as the API shows it. */
export interface LeaseView {
  readonly pool: string;
  readonly owner: string;
  readonly interface: string;
  readonly family: IpFamily;
  readonly address: string;
  readonly mac: string;
  readonly kind: LeaseKind;
}

/**
 * How much of one family of a pool is used. Counts are numbers: exact for IPv4, and for IPv6 up
 * to 2^53 (a /64's capacity, 2^64 - 2, shows rounded).
 */
export interface PoolUsage {
  readonly capacity: number;
  readonly leased: number;
  readonly reserved: number;
  readonly free: number;
}

/**
 * A pool as the API shows it: its spec, its IPv4 usage at the top level (as before IPv6 pools,
 * absent for a pool without IPv4) and its IPv6 usage under `ipv6`.
 */
export type PoolView = PoolSpec & Partial<PoolUsage> & { readonly ipv6?: PoolUsage };

/** The API view of a lease. */
export function toLeaseView(l: Lease): LeaseView {
  return {
    pool: l.pool,
    owner: l.owner,
    interface: l.interface,
    family: l.family,
    address: l.address,
    mac: l.mac,
    kind: l.kind,
  };
}

/** The API view of every pool with its usage counted from the book. */
export function toPoolViews(pools: PoolRegistry, book: LeaseBook): PoolView[] {
  const leased = new Map<string, number>();
  const reserved = new Map<string, number>();
  for (const l of book.leases.values()) {
    const m = l.kind === 'reserved' ? reserved : leased;
    const key = `${l.pool}/${l.family}`;
    m.set(key, (m.get(key) ?? 0) + 1);
  }
  const usage = (name: string, side: PoolFamily): PoolUsage => {
    const key = `${name}/${side.family}`;
    const capacity = poolCapacity(side);
    const l = leased.get(key) ?? 0;
    const r = reserved.get(key) ?? 0;
    return {
      capacity: Number(capacity),
      leased: l,
      reserved: r,
      free: Number(capacity - BigInt(l) - BigInt(r)),
    };
  };
  return [...pools.values()].map((p) => ({
    ...toPoolSpec(p),
    ...(p.ipv4 === undefined ? {} : usage(p.name, p.ipv4)),
    ...(p.ipv6 === undefined ? {} : { ipv6: usage(p.name, p.ipv6) }),
  }));
}
