/**
 * How a lease came to be: `dynamic` from the allocator, `static` from a run.json static address,
 * `reserved` from an address baked into a container's lxc.container.conf (owner `static:<name>`).
 */
export type LeaseKind = 'dynamic' | 'static' | 'reserved';

/** One address held in a pool by (pool, owner, interface). */
export interface Lease {
  readonly pool: string;
  /** The container name, or `static:<container>` for a reservation from its lxc config. */
  readonly owner: string;
  readonly interface: string;
  readonly ip: number;
  readonly address: string;
  readonly mac: string;
  readonly kind: LeaseKind;
}

/**
 * Every lease plus each pool's round-robin cursor (the ordinal last handed out). Immutable: every
 * operation returns a new book, so a failed multi-interface start leaves the old book untouched.
 */
export interface LeaseBook {
  readonly leases: ReadonlyMap<string, Lease>;
  readonly cursors: ReadonlyMap<string, number>;
}

/** A book with no lease. */
export const EMPTY_LEASE_BOOK: LeaseBook = { leases: new Map(), cursors: new Map() };

/** The map key of a lease: (pool, owner, interface). */
export function leaseKey(pool: string, owner: string, iface: string): string {
  return `${pool}\u0000${owner}\u0000${iface}`;
}

/** The owner tag of addresses reserved from a container's lxc.container.conf. */
export function reservationOwner(container: string): string {
  return `static:${container}`;
}

/** Leases of one pool. */
export function leasesInPool(book: LeaseBook, pool: string): Lease[] {
  return [...book.leases.values()].filter((l) => l.pool === pool);
}

/** Leases held by one container (its own, not its `static:` reservations). */
export function leasesOfContainer(book: LeaseBook, container: string): Lease[] {
  return [...book.leases.values()].filter((l) => l.owner === container);
}

/** A copy of the book with `lease` set (replacing the one with the same key). */
export function withLease(book: LeaseBook, lease: Lease): LeaseBook {
  const leases = new Map(book.leases);
  leases.set(leaseKey(lease.pool, lease.owner, lease.interface), lease);
  return { leases, cursors: book.cursors };
}

/** A copy of the book keeping only the leases for which `keep` is true. */
export function filterLeases(book: LeaseBook, keep: (lease: Lease) => boolean): LeaseBook {
  const leases = new Map([...book.leases].filter(([, l]) => keep(l)));
  return leases.size === book.leases.size ? book : { leases, cursors: book.cursors };
}
