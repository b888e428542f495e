import type { LeaseResult } from './allocate-address.js';
import type { StaticAddress } from './container-network.js';
import { DeviceError } from './device-error.js';
import { broadcastOf, formatIpv4, macForIpv4, subnetContains } from './ipv4.js';
import type { Lease, LeaseBook } from './lease.js';
import { leaseKey } from './lease.js';
import type { Pool } from './pool.js';

/** Who asks for which static address. */
export interface ReserveStaticArgs {
  readonly owner: string;
  readonly interface: string;
  readonly address: StaticAddress;
  readonly mac?: string | undefined;
}

/**
 * Reserves a run.json static address for (pool, owner, interface). Idempotent for the same owner
 * (a stopped and restarted static-IP container gets its address back). Throws
 * `StaticOutsideSubnet` (outside the subnet, or a prefix other than the pool's),
 * `StaticNotHostAddress` (network or broadcast address) or `StaticInUse` (the gateway, or another
 * owner's lease); the input book is never modified.
 */
export function reserveStaticAddress(
  book: LeaseBook,
  pool: Pool,
  args: ReserveStaticArgs,
): LeaseResult {
  const { ip, prefix, text } = args.address;
  const where = `static IP ${text} for ${args.owner}/${args.interface} in pool '${pool.name}' (${pool.subnet})`;
  if (!subnetContains(pool.cidr, ip))
    throw new DeviceError('StaticOutsideSubnet', `${where} is outside the subnet`);
  if (prefix !== undefined && prefix !== pool.cidr.prefix) {
    throw new DeviceError(
      'StaticOutsideSubnet',
      `${where} has prefix /${prefix}, the pool's is /${pool.cidr.prefix}`,
    );
  }
  if (ip === pool.cidr.base || ip === broadcastOf(pool.cidr)) {
    throw new DeviceError('StaticNotHostAddress', `${where} is the network or broadcast address`);
  }
  if (ip === pool.gatewayIp) throw new DeviceError('StaticInUse', `${where} is the pool's gateway`);
  const key = leaseKey(pool.name, args.owner, args.interface);
  for (const [k, l] of book.leases) {
    if (l.pool === pool.name && l.ip === ip && k !== key) {
      throw new DeviceError(
        'StaticInUse',
        `${where} is already in use by ${l.owner}/${l.interface}`,
      );
    }
  }
  const mac = args.mac ?? macForIpv4(ip);
  const existing = book.leases.get(key);
  if (existing?.kind === 'static' && existing.ip === ip && existing.mac === mac)
    return { book, lease: existing };
  const lease: Lease = {
    pool: pool.name,
    owner: args.owner,
    interface: args.interface,
    ip,
    address: formatIpv4(ip),
    mac,
    kind: 'static',
  };
  const leases = new Map(book.leases);
  leases.set(key, lease);
  return { book: { leases, cursors: book.cursors }, lease };
}
