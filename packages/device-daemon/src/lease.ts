import type { IpFamily } from './address.js';

/**
 * How a lease came to be: `dynamic` from the allocator, `static` from a run.json static address,
 * `reserved` from an address baked into a container's lxc.container.conf (owner `static:<name>`).
 */
export type LeaseKind = 'dynamic' | 'static' | 'reserved';

/** One address of one family held in a pool by (pool, owner, interface). */
export interface Lease {
  readonly pool: string;
  /** The container name, or `static:<container>` for a reservation from its lxc config. */
  readonly owner: string;
  readonly interface: string;
  readonly family: IpFamily;
  readonly ip: bigint;
  readonly address: string;
  /** The interface's MAC (both leases of a dual-stack interface carry the same one). */
  readonly mac: string;
  readonly kind: LeaseKind;
}

/**
 * Every lease plus each pool family's round-robin cursor (the ordinal last handed out, keyed by
 * {@link cursorKey}). Immutable: every operation returns a new book, so a failed multi-interface
 * start leaves the old book untouched.
 */
export interface LeaseBook {
  readonly leases: ReadonlyMap<string, Lease>;
  readonly cursors: ReadonlyMap<string, bigint>;
}

/** A book with no lease. */
export const EMPTY_LEASE_BOOK: LeaseBook = { leases: new Map(), cursors: new Map() };

/** The map key of a lease: (pool, owner, interface, family). */
export function leaseKey(args: {
  readonly pool: string;
  readonly owner: string;
  readonly interface: string;
  readonly family: IpFamily;
}): string {
  const base = `${args.pool}\u0000${args.owner}\u0000${args.interface}`;
  return args.family === 4 ? base : `${base}\u00006`;
}

/** The cursor key of one family of a pool: the pool name (IPv4) or `<pool>/6` (pool names have no `/`). */
export function cursorKey(pool: string, family: IpFamily): string {
  return family === 4 ? pool : `${pool}/6`;
}

/** The pool and family a cursor key names (the inverse of {@link cursorKey}). */
export function parseCursorKey(key: string): { readonly pool: string; readonly family: IpFamily } {
  return key.endsWith('/6') ? { pool: key.slice(0, -2), family: 6 } : { pool: key, family: 4 };
}

/** The owner tag of addresses reserved from a container's lxc.container.conf. */
export function reservationOwner(container: string): string {
  return `static:${container}`;
}

/** Leases held by one container (its own, not its `static:` reservations). */
export function leasesOfContainer(book: LeaseBook, container: string): Lease[] {
  return [...book.leases.values()].filter((l) => l.owner === container);
}

/** A copy of the book keeping only the leases for which `keep` is true. */
export function filterLeases(book: LeaseBook, keep: (lease: Lease) => boolean): LeaseBook {
  const leases = new Map([...book.leases].filter(([, l]) => keep(l)));
  return leases.size === book.leases.size ? book : { leases, cursors: book.cursors };
}

/** True when two books hold the same leases (by key, address, MAC and kind) and the same cursors. */
export function sameBook(a: LeaseBook, b: LeaseBook): boolean {
  if (a === b) return true;
  if (a.leases.size !== b.leases.size || a.cursors.size !== b.cursors.size) return false;
  for (const [key, v] of a.cursors) if (b.cursors.get(key) !== v) return false;
  for (const [key, l] of a.leases) {
    const o = b.leases.get(key);
    if (o === undefined || o.ip !== l.ip || o.mac !== l.mac || o.kind !== l.kind) return false;
  }
  return true;
}
