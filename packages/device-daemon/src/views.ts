import type { Lease, LeaseBook, LeaseKind } from './lease.js';
import type { PoolRegistry, PoolSpec } from './pool.js';
import { poolCapacity, toPoolSpec } from './pool.js';

/** A lease as the API shows it. */
export interface LeaseView {
  readonly pool: string;
  readonly owner: string;
  readonly interface: string;
  readonly address: string;
  readonly mac: string;
  readonly kind: LeaseKind;
}

/** A pool as the API shows it: its spec and its usage. */
export interface PoolView extends PoolSpec {
  readonly capacity: number;
  readonly leased: number;
  readonly reserved: number;
  readonly free: number;
}

/** The API view of a lease. */
export function toLeaseView(l: Lease): LeaseView {
  return {
    pool: l.pool,
    owner: l.owner,
    interface: l.interface,
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
    m.set(l.pool, (m.get(l.pool) ?? 0) + 1);
  }
  return [...pools.values()].map((p) => {
    const capacity = poolCapacity(p);
    const l = leased.get(p.name) ?? 0;
    const r = reserved.get(p.name) ?? 0;
    return { ...toPoolSpec(p), capacity, leased: l, reserved: r, free: capacity - l - r };
  });
}
