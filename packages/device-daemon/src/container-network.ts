import type { IpFamily } from './address.js';

/** How a container attaches to the network: IPAM pool, the host's netns, or left alone. */
type NetworkMode = 'pool' | 'host' | 'none';

/** A static address asked for in run.json (`ipv4_address` or the flat `ip`; `ipv6_address`). */
export interface StaticAddress {
  readonly family: IpFamily;
  readonly ip: bigint;
  /** The prefix the user wrote, if any; it must match the pool's. */
  readonly prefix: number | undefined;
  readonly text: string;
}

/** One container-side interface attached to a pool. */
export interface InterfaceSpec {
  readonly name: string;
  readonly pool: string;
  /** The static IPv4 address asked for, if any. */
  readonly static4: StaticAddress | undefined;
  /** The static IPv6 address asked for, if any. */
  readonly static6: StaticAddress | undefined;
  readonly mac: string | undefined;
}

/** The parsed `network` block of a container's run.json. */
export interface ContainerNetwork {
  readonly mode: NetworkMode;
  readonly hostname: string | undefined;
  /** Empty unless `mode` is `pool`. */
  readonly interfaces: readonly InterfaceSpec[];
}

/** The network of a container with no `network` block: IPAM stays out of it. */
export const NO_NETWORK: ContainerNetwork = { mode: 'none', hostname: undefined, interfaces: [] };
