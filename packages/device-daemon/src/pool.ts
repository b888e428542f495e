import type { Ipv4Subnet } from './ipv4.js';

/** A pool as written in device.json, normalised: what is persisted and shown by the API. */
export interface PoolSpec {
  readonly name: string;
  readonly type: 'bridge';
  readonly bridge: string;
  /** Canonical CIDR, e.g. `10.0.5.0/24`. */
  readonly subnet: string;
  /** Canonical dotted quad inside the subnet. */
  readonly gateway: string;
  readonly nat: boolean;
}

/** A validated pool: its spec plus the numbers the allocator works with. */
export interface Pool extends PoolSpec {
  readonly cidr: Ipv4Subnet;
  readonly gatewayIp: number;
}

/** The pools of one revision, by name, in declaration order. */
export type PoolRegistry = ReadonlyMap<string, Pool>;

/** Number of addresses the allocator can hand out: the subnet minus network, broadcast and gateway. */
export function poolCapacity(pool: Pool): number {
  return 2 ** (32 - pool.cidr.prefix) - 3;
}

/** The spec view of a pool (drops the derived numbers). */
export function toPoolSpec(pool: Pool): PoolSpec {
  const { name, type, bridge, subnet, gateway, nat } = pool;
  return { name, type, bridge, subnet, gateway, nat };
}
