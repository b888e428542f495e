import { formatAddress, isHostAddress, macForAddress, subnetContains } from './address.js';
import type { LeaseResult } from './allocate-address.js';
import type { StaticAddress } from './container-network.js';
import { DeviceError } from './device-error.js';
import type { Lease, LeaseBook } from './lease.js';
import { leaseKey } from './lease.js';
import type { Pool } from './pool.js';
import { poolFamily } from './pool.js';

/** Who asks for which static address (its family is the address's). */
export interface ReserveStaticArgs {
  readonly owner: string;
  readonly interface: string;
  readonly address: StaticAddress;
  readonly mac?: string | undefined;
}

/**
 * Reserves a run.json static address for (pool, owner, interface). Idempotent for the same owner
 * (a stopped and restarted static-IP container gets its address back). Throws
 * `StaticOutsideSubnet` (the pool has no subnet of that family, the address is outside it, or it
 * carries a prefix other than the pool's), `StaticNotHostAddress` (network or broadcast address;
 * IPv6: subnet-router anycast) or `StaticInUse` (the gateway, or another owner's lease); the input
 * book is never modified.
 */
export function reserveStaticAddress(
  book: LeaseBook,
  pool: Pool,
  args: ReserveStaticArgs,
): LeaseResult {
  const { family, ip, prefix, text } = args.address;
  const side = poolFamily(pool, family);
  const owner = `${args.owner}/${args.interface}`;
  if (side === undefined) {
    throw new DeviceError(
      'StaticOutsideSubnet',
      `static IP ${text} for ${owner}: pool '${pool.name}' has no IPv${family} subnet`,
    );
  }
  const where = `static IP ${text} for ${owner} in pool '${pool.name}' (${side.subnet})`;
  if (!subnetContains(side.cidr, ip))
    throw new DeviceError('StaticOutsideSubnet', `${where} is outside the subnet`);
  if (prefix !== undefined && prefix !== side.cidr.prefix) {
    throw new DeviceError(
      'StaticOutsideSubnet',
      `${where} has prefix /${prefix}, the pool's is /${side.cidr.prefix}`,
    );
  }
  if (!isHostAddress(side.cidr, ip)) {
    const what =
      family === 4 ? 'the network or broadcast address' : 'the subnet-router anycast address';
    throw new DeviceError('StaticNotHostAddress', `${where} is ${what}`);
  }
  if (ip === side.gatewayIp) throw new DeviceError('StaticInUse', `${where} is the pool's gateway`);
  const key = leaseKey({ pool: pool.name, owner: args.owner, interface: args.interface, family });
  for (const [k, l] of book.leases) {
    if (l.pool === pool.name && l.family === family && l.ip === ip && k !== key) {
      throw new DeviceError(
        'StaticInUse',
        `${where} is already in use by ${l.owner}/${l.interface}`,
      );
    }
  }
  const mac = args.mac ?? macForAddress(ip);
  const existing = book.leases.get(key);
  if (existing?.kind === 'static' && existing.ip === ip && existing.mac === mac)
    return { book, lease: existing };
  const lease: Lease = {
    pool: pool.name,
    owner: args.owner,
    interface: args.interface,
    family,
    ip,
    address: formatAddress(family, ip),
    mac,
    kind: 'static',
  };
  const leases = new Map(book.leases);
  leases.set(key, lease);
  return { book: { leases, cursors: book.cursors }, lease };
}
