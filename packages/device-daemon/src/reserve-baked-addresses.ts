import { broadcastOf, formatIpv4, macForIpv4, subnetContains } from './ipv4.js';
import type { Lease, LeaseBook } from './lease.js';
import { leaseKey, reservationOwner } from './lease.js';
import type { PoolRegistry } from './pool.js';
import type { BakedAddress } from './scan-lxc-config.js';

/** What happened to one baked address; `reserved` is the only outcome that adds a lease. */
export type BakedOutcome =
  'reserved' | 'outside-pools' | 'gateway-clash' | 'not-host-address' | 'duplicate';

/** The log-worthy result of reserving one baked address. */
export interface BakedReservation {
  readonly container: string;
  readonly address: string;
  readonly pool: string | undefined;
  readonly outcome: BakedOutcome;
}

/**
 * Reserves addresses baked into a container's lxc.container.conf so the allocator never hands
 * them out: an address inside a pool becomes a `reserved` lease owned by `static:<container>`.
 * Addresses outside every pool are ignored, a gateway clash or a network/broadcast address is
 * reported and not reserved, and an address already leased is skipped. Never throws.
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
    const address = formatIpv4(baked.ip);
    const pool = [...pools.values()].find((p) => subnetContains(p.cidr, baked.ip));
    const report = (outcome: BakedOutcome): void => {
      results.push({ container: args.container, address, pool: pool?.name, outcome });
    };
    if (pool === undefined) {
      report('outside-pools');
      continue;
    }
    if (baked.ip === pool.gatewayIp) {
      report('gateway-clash');
      continue;
    }
    if (baked.ip === pool.cidr.base || baked.ip === broadcastOf(pool.cidr)) {
      report('not-host-address');
      continue;
    }
    const current = leases ?? book.leases;
    if ([...current.values()].some((l) => l.pool === pool.name && l.ip === baked.ip)) {
      report('duplicate');
      continue;
    }
    leases ??= new Map(book.leases);
    // LXC allows several addresses per interface, so the address is part of the key.
    const iface = `net${baked.index}@${address}`;
    leases.set(leaseKey(pool.name, owner, iface), {
      pool: pool.name,
      owner,
      interface: iface,
      ip: baked.ip,
      address,
      mac: macForIpv4(baked.ip),
      kind: 'reserved',
    });
    report('reserved');
  }
  return { book: leases === undefined ? book : { leases, cursors: book.cursors }, results };
}
