import { DeviceError } from './device-error.js';
import { formatIpv4, macForIpv4 } from './ipv4.js';
import type { Lease, LeaseBook } from './lease.js';
import { leaseKey } from './lease.js';
import type { Pool } from './pool.js';

/** Who asks for an address, and an optional static MAC. */
export interface AllocateArgs {
  readonly owner: string;
  readonly interface: string;
  readonly mac?: string | undefined;
}

/** A new book and the lease it holds for the caller. */
export interface LeaseResult {
  readonly book: LeaseBook;
  readonly lease: Lease;
}

/**
 * Gives (pool, owner, interface) an address. An existing lease is reused (its MAC updated if a
 * static MAC is now given). Otherwise the next free host address after the pool's cursor is taken,
 * round-robin with wraparound over the subnet minus network, broadcast, gateway and every address
 * already leased or reserved in the pool. Throws `PoolExhausted` when none is free; the input book
 * is never modified.
 */
export function allocateAddress(book: LeaseBook, pool: Pool, args: AllocateArgs): LeaseResult {
  const key = leaseKey(pool.name, args.owner, args.interface);
  const existing = book.leases.get(key);
  if (existing !== undefined && existing.kind === 'dynamic') {
    if (args.mac === undefined || args.mac === existing.mac) return { book, lease: existing };
    return put(book, { ...existing, mac: args.mac }, undefined);
  }
  const used = new Set<number>();
  for (const l of book.leases.values())
    if (l.pool === pool.name && l.ip !== existing?.ip) used.add(l.ip);
  const base = pool.cidr.base;
  const hosts = 2 ** (32 - pool.cidr.prefix) - 2; // ordinals 1..hosts are host addresses
  const gatewayOrdinal = pool.gatewayIp - base;
  const cursor = book.cursors.get(pool.name) ?? gatewayOrdinal;
  for (let step = 1; step <= hosts; step++) {
    const ordinal = ((cursor - 1 + step) % hosts) + 1;
    const ip = base + ordinal;
    if (ordinal === gatewayOrdinal || used.has(ip)) continue;
    const lease: Lease = {
      pool: pool.name,
      owner: args.owner,
      interface: args.interface,
      ip,
      address: formatIpv4(ip),
      mac: args.mac ?? macForIpv4(ip),
      kind: 'dynamic',
    };
    return put(book, lease, ordinal);
  }
  throw new DeviceError(
    'PoolExhausted',
    `no available IPs in pool '${pool.name}' (${pool.subnet})`,
  );
}

function put(book: LeaseBook, lease: Lease, cursor: number | undefined): LeaseResult {
  const leases = new Map(book.leases);
  leases.set(leaseKey(lease.pool, lease.owner, lease.interface), lease);
  let cursors = book.cursors;
  if (cursor !== undefined) {
    const next = new Map(cursors);
    next.set(lease.pool, cursor);
    cursors = next;
  }
  return { book: { leases, cursors }, lease };
}
