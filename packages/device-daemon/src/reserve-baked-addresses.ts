import { formatAddress, isHostAddress, macForAddress, subnetContains } from './address.js';
import type { Lease, LeaseBook } from './lease.js';
import { leaseKey, reservationOwner } from './lease.js';
import type { PoolRegistry } from './pool.js';
import { poolFamily } from './pool.js';
import type { BakedAddress } from './scan-lxc-config.js';

/** What happened to one baked address; `reserved` is the only outcome that adds a lease. */
type BakedOutcome =
  'reserved' | 'outside-pools' | 'gateway-clash' | 'not-host-address' | 'duplicate';

/** The log-worthy result of reserving one baked address. */
export interface BakedReservation {
  readonly container: string;
  readonly address: string;
  readonly pool: string | undefined;
  readonly outcome: BakedOutcome;
}

/**
 * Reserves addresses baked into a container's lxc.container.conf (IPv4 and IPv6) so the allocator
 * never hands them out: an address inside a pool's subnet of its family becomes a `reserved` lease
 * owned by `static:<container>`. Addresses outside every pool are ignored, a gateway clash or a
 * network/broadcast (IPv6: subnet-router anycast) address is reported and not reserved, and an
 * address already leased is skipped. Never throws.
 */
export function reserveBakedAddresses(
  book: LeaseBook,
  pools: PoolRegistry,
  args: { readonly container: string; readonly addresses: readonly BakedAddress[] },
): { book: LeaseBook; results: BakedReservation[] } {
  const results: BakedReservation[] = [];
  let leases: Map<string, Lease> | undefined;
  const owner = reservationOwner(args.container);
  for (const baked of args.addresses) {
    const { family, ip } = baked;
    const address = formatAddress(family, ip);
    const pool = [...pools.values()].find((p) => {
      const side = poolFamily(p, family);
      return side !== undefined && subnetContains(side.cidr, ip);
    });
    const report = (outcome: BakedOutcome): void => {
      results.push({ container: args.container, address, pool: pool?.name, outcome });
    };
    const side = pool === undefined ? undefined : poolFamily(pool, family);
    if (pool === undefined || side === undefined) {
      report('outside-pools');
      continue;
    }
    if (ip === side.gatewayIp) {
      report('gateway-clash');
      continue;
    }
    if (!isHostAddress(side.cidr, ip)) {
      report('not-host-address');
      continue;
    }
    const current = leases ?? book.leases;
    if (
      [...current.values()].some((l) => l.pool === pool.name && l.family === family && l.ip === ip)
    ) {
      report('duplicate');
      continue;
    }
    leases ??= new Map(book.leases);
    // LXC allows several addresses per interface, so the address is part of the key.
    const lease: Lease = {
      pool: pool.name,
      owner,
      interface: `net${baked.index}@${address}`,
      family,
      ip,
      address,
      mac: macForAddress(ip),
      kind: 'reserved',
    };
    leases.set(leaseKey(lease), lease);
    report('reserved');
  }
  return { book: leases === undefined ? book : { leases, cursors: book.cursors }, results };
}
