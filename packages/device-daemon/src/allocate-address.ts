import type { IpFamily } from './address.js';
import { formatAddress, macForAddress } from './address.js';
import { DeviceError } from './device-error.js';
import type { Lease, LeaseBook } from './lease.js';
import { cursorKey, leaseKey } from './lease.js';
import type { Pool } from './pool.js';
import { poolFamily } from './pool.js';

/** Who asks for an address of which family, and an optional MAC for the interface. */
export interface AllocateArgs {
  readonly family: IpFamily;
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
 * Gives (pool, owner, interface) an address of one family. An existing dynamic lease is reused
 * (its MAC updated if another one is now given). Otherwise the next free host address after the
 * pool family's cursor is taken, round-robin with wraparound over the subnet minus the gateway,
 * the network and broadcast addresses (IPv4) or the subnet-router anycast address (IPv6), and
 * every address already leased or reserved in the pool. Throws `PoolExhausted` when none is free
 * (and `UnknownPool` when the pool does not serve the family); the input book is never modified.
 */
export function allocateAddress(book: LeaseBook, pool: Pool, args: AllocateArgs): LeaseResult {
  const side = poolFamily(pool, args.family);
  if (side === undefined) {
    throw new DeviceError('UnknownPool', `pool '${pool.name}' has no IPv${args.family} subnet`);
  }
  const key = leaseKey({ pool: pool.name, ...args });
  const existing = book.leases.get(key);
  if (existing !== undefined && existing.kind === 'dynamic') {
    if (args.mac === undefined || args.mac === existing.mac) return { book, lease: existing };
    return put(book, { ...existing, mac: args.mac }, undefined);
  }
  const used = new Set<bigint>();
  for (const l of book.leases.values())
    if (l.pool === pool.name && l.family === args.family && l.ip !== existing?.ip) used.add(l.ip);
  const base = side.cidr.base;
  const size = 1n << BigInt((args.family === 4 ? 32 : 128) - side.cidr.prefix);
  // Host ordinals: 1..size-2 for IPv4 (no broadcast), 1..size-1 for IPv6.
  const hosts = args.family === 4 ? size - 2n : size - 1n;
  const gatewayOrdinal = side.gatewayIp - base;
  const cursor = book.cursors.get(cursorKey(pool.name, args.family)) ?? gatewayOrdinal;
  // At most used.size + 2 steps find a free address when there is one: the walk is short even
  // in a /64.
  for (let step = 1n; step <= hosts; step++) {
    const ordinal = ((cursor - 1n + step) % hosts) + 1n;
    const ip = base + ordinal;
    if (ordinal === gatewayOrdinal || used.has(ip)) continue;
    const lease: Lease = {
      pool: pool.name,
      owner: args.owner,
      interface: args.interface,
      family: args.family,
      ip,
      address: formatAddress(args.family, ip),
      mac: args.mac ?? macForAddress(ip),
      kind: 'dynamic',
    };
    return put(book, lease, ordinal);
  }
  throw new DeviceError(
    'PoolExhausted',
    `no available IPv${args.family} addresses in pool '${pool.name}' (${side.subnet})`,
  );
}

function put(book: LeaseBook, lease: Lease, cursor: bigint | undefined): LeaseResult {
  const leases = new Map(book.leases);
  leases.set(leaseKey(lease), lease);
  let cursors = book.cursors;
  if (cursor !== undefined) {
    const next = new Map(cursors);
    next.set(cursorKey(lease.pool, lease.family), cursor);
    cursors = next;
  }
  return { book: { leases, cursors }, lease };
}
