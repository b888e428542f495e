import type { PoolDiff } from './diff-pools.js';
import { diffPools } from './diff-pools.js';
import { isHostAddress } from './address.js';
import type { Lease, LeaseBook } from './lease.js';
import { filterLeases, parseCursorKey } from './lease.js';
import type { PoolRegistry } from './pool.js';
import { poolFamily } from './pool.js';
import type { BakedReservation } from './reserve-baked-addresses.js';
import { reserveBakedAddresses } from './reserve-baked-addresses.js';
import type { Revision } from './revision.js';

/** The book after a revision is applied, what changed in the pools, and the reservation walk. */
export interface RevisionPlan {
  readonly book: LeaseBook;
  readonly diff: PoolDiff;
  readonly released: readonly Lease[];
  readonly reservations: readonly BakedReservation[];
}

/**
 * Moves the lease book to a new revision. Leases are released when their pool was removed, when
 * a changed pool no longer holds their address as a host address of their family (or no longer
 * serves that family), and when their container left
 * the revision or no longer asks for that (pool, interface) or that static address. Reservations
 * from lxc configs are recomputed from scratch. Leases of containers that stay are kept, so a
 * reboot or a re-apply does not move any container's address.
 */
export function planRevision(
  book: LeaseBook,
  previous: PoolRegistry,
  revision: Revision,
): RevisionPlan {
  const diff = diffPools(previous, revision.pools);
  const released: Lease[] = [];
  const keep = (l: Lease): boolean => {
    const ok = stillValid(l, revision);
    if (!ok && l.kind !== 'reserved') released.push(l);
    return ok;
  };
  let next = filterLeases(book, keep);
  const cursors = new Map(
    [...next.cursors].filter(([key]) => {
      const { pool, family } = parseCursorKey(key);
      const kept = revision.pools.get(pool);
      return kept !== undefined && poolFamily(kept, family) !== undefined;
    }),
  );
  next = { leases: next.leases, cursors };
  const reservations: BakedReservation[] = [];
  for (const entry of revision.containers.values()) {
    if (entry.lxc === undefined || entry.lxc.addresses.length === 0) continue;
    const r = reserveBakedAddresses(next, revision.pools, {
      container: entry.name,
      addresses: entry.lxc.addresses,
    });
    next = r.book;
    reservations.push(...r.results);
  }
  return { book: next, diff, released, reservations };
}

function stillValid(l: Lease, revision: Revision): boolean {
  if (l.kind === 'reserved') return false; // recomputed by the reservation walk
  const pool = revision.pools.get(l.pool);
  const side = pool === undefined ? undefined : poolFamily(pool, l.family);
  if (side === undefined || !isHostAddress(side.cidr, l.ip) || l.ip === side.gatewayIp)
    return false;
  const entry = revision.containers.get(l.owner);
  if (entry === undefined || entry.error !== undefined || entry.network.mode !== 'pool')
    return false;
  const iface = entry.network.interfaces.find((i) => i.name === l.interface && i.pool === l.pool);
  if (iface === undefined) return false;
  const wanted = l.family === 4 ? iface.static4 : iface.static6;
  if (wanted === undefined) return l.kind === 'dynamic';
  return l.kind === 'static' && l.ip === wanted.ip;
}
