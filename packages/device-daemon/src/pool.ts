import type { Cidr } from '@netledger/accounting';
import type { IpFamily } from './address.js';
import { FAMILIES, subnetSize } from './address.js';

/**
 * A pool as written in device.json, normalised: what is persisted and shown by the API. A pool
 * has an IPv4 subnet, an IPv6 subnet (`subnet6`) or both; the keys of a family it lacks are absent.
 */
export interface PoolSpec {
  readonly name: string;
  readonly type: 'bridge';
  readonly bridge: string;
  /** Canonical IPv4 CIDR, e.g. `10.0.5.0/24`. */
  readonly subnet?: string;
  /** Canonical dotted quad inside `subnet`. */
  readonly gateway?: string;
  /** Masquerade the IPv4 subnet (false for a pool without one). */
  readonly nat: boolean;
  /** Canonical IPv6 CIDR (RFC 5952), e.g. `fd00:5::/64`. */
  readonly subnet6?: string;
  /** Canonical IPv6 address inside `subnet6`. */
  readonly gateway6?: string;
  /** Masquerade the IPv6 subnet (NAT66); present when the pool has `subnet6`. */
  readonly nat6?: boolean;
}

/** One address family of a pool: its subnet, its gateway and whether it is masqueraded. */
export interface PoolFamily {
  readonly family: IpFamily;
  /** Canonical CIDR. */
  readonly subnet: string;
  /** Canonical address. */
  readonly gateway: string;
  readonly cidr: Cidr;
  readonly gatewayIp: bigint;
  readonly nat: boolean;
}

/** A validated pool: its bridge and the families it serves. At least one family is set. */
export interface Pool {
  readonly name: string;
  readonly type: 'bridge';
  readonly bridge: string;
  readonly ipv4: PoolFamily | undefined;
  readonly ipv6: PoolFamily | undefined;
}

/** The pools of one revision, by name, in declaration order. */
export type PoolRegistry = ReadonlyMap<string, Pool>;

/** The pool's side of one family, or `undefined` when it does not serve that family. */
export function poolFamily(pool: Pool, family: IpFamily): PoolFamily | undefined {
  return family === 4 ? pool.ipv4 : pool.ipv6;
}

/** The families a pool serves, IPv4 first. */
export function familiesOf(pool: Pool): PoolFamily[] {
  return FAMILIES.flatMap((f) => poolFamily(pool, f) ?? []);
}

/**
 * Number of addresses the allocator can hand out in one family of a pool: the subnet minus the
 * gateway and the network and broadcast addresses (IPv4) or the subnet-router anycast address (IPv6).
 */
export function poolCapacity(side: PoolFamily): bigint {
  return subnetSize(side.cidr) - (side.family === 4 ? 3n : 2n);
}

/** The spec view of a pool (drops the derived numbers). */
export function toPoolSpec(pool: Pool): PoolSpec {
  const { name, type, bridge, ipv4, ipv6 } = pool;
  return {
    name,
    type,
    bridge,
    ...(ipv4 === undefined ? {} : { subnet: ipv4.subnet, gateway: ipv4.gateway }),
    nat: ipv4?.nat ?? false,
    ...(ipv6 === undefined ? {} : { subnet6: ipv6.subnet, gateway6: ipv6.gateway, nat6: ipv6.nat }),
  };
}
