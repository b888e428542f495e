import type { IpFamily } from './address.js';
import { FAMILIES } from './address.js';
import type { LeaseResult } from './allocate-address.js';
import { allocateAddress } from './allocate-address.js';
import { DeviceError } from './device-error.js';
import type { Lease, LeaseBook } from './lease.js';
import type { LxcInterface, LxcNetworkConfig } from './render-lxc-network.js';
import { renderLxcNetwork } from './render-lxc-network.js';
import { poolFamily } from './pool.js';
import { reserveStaticAddress } from './reserve-static-address.js';
import type { Revision } from './revision.js';

/** The outcome of a successful start: the new book, the container's leases and its LXC config. */
export interface StartPlan {
  readonly book: LeaseBook;
  readonly leases: readonly Lease[];
  /** `undefined` for a container outside IPAM (mode host or none): nothing to inject. */
  readonly config: LxcNetworkConfig | undefined;
}

/**
 * Plans a container start against the applied revision: pre-start validation (a pool container
 * must not bake `lxc.net.*`), then per interface the pool lookup and a static reservation or an
 * allocation per family the pool serves (IPv4 first; a dual-stack interface gets one lease of each
 * family and one MAC), reusing the container's existing leases. Throws `UnknownContainer`, the container's
 * own parse error, `BakedLxcNet`, `UnknownPool`, `StaticOutsideSubnet`, `StaticNotHostAddress`,
 * `StaticInUse` or `PoolExhausted`. On failure the input book stands: leases taken by this attempt
 * for earlier interfaces are rolled back by construction; leases held from earlier starts stay.
 */
export function planStart(book: LeaseBook, revision: Revision, container: string): StartPlan {
  const entry = revision.containers.get(container);
  if (entry === undefined) {
    throw new DeviceError(
      'UnknownContainer',
      `container '${container}' is not in the applied revision`,
    );
  }
  if (entry.error !== undefined) throw entry.error;
  if (entry.network.mode !== 'pool') return { book, leases: [], config: undefined };
  const baked = entry.lxc?.netKeys[0];
  if (baked !== undefined) {
    throw new DeviceError(
      'BakedLxcNet',
      `platform '${container}' declares an IPAM pool but its lxc.container.conf already contains lxc.net.* entries ` +
        `(line ${baked.line}: ${baked.key}); remove the baked lxc.net.* config, or drop the pool reference`,
    );
  }
  let next = book;
  const interfaces: LxcInterface[] = [];
  for (const iface of entry.network.interfaces) {
    const pool = revision.pools.get(iface.pool);
    if (pool === undefined) {
      throw new DeviceError(
        'UnknownPool',
        `platform '${container}' references unknown pool '${iface.pool}'`,
      );
    }
    const leased: Partial<Record<IpFamily, Lease>> = {};
    let mac = iface.mac;
    for (const family of FAMILIES) {
      const wanted = family === 4 ? iface.static4 : iface.static6;
      if (poolFamily(pool, family) === undefined && wanted === undefined) continue;
      const args = { owner: container, interface: iface.name, mac };
      const result: LeaseResult =
        wanted === undefined
          ? allocateAddress(next, pool, { ...args, family })
          : reserveStaticAddress(next, pool, { ...args, address: wanted });
      next = result.book;
      leased[family] = result.lease;
      // Both families of one interface share its MAC: the first family's decides.
      mac ??= result.lease.mac;
    }
    interfaces.push({ name: iface.name, pool, ipv4: leased[4], ipv6: leased[6] });
  }
  const config = renderLxcNetwork({
    hostname: entry.network.hostname ?? container,
    interfaces,
    namespaceKeep: entry.lxc?.namespaceKeep,
  });
  const leases = interfaces.flatMap((i) => [i.ipv4, i.ipv6].filter((l) => l !== undefined));
  return { book: next, leases, config };
}
