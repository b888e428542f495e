import type { LeaseResult } from './allocate-address.js';
import { allocateAddress } from './allocate-address.js';
import { DeviceError } from './device-error.js';
import type { Lease, LeaseBook } from './lease.js';
import type { LxcInterface, LxcNetworkConfig } from './render-lxc-network.js';
import { renderLxcNetwork } from './render-lxc-network.js';
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
 * allocation, reusing the container's existing leases. Throws `UnknownContainer`, the container's
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
        `platform '${container}' references unknown pool '${iface.pool}', refusing to start`,
      );
    }
    const args = { owner: container, interface: iface.name, mac: iface.mac };
    const result: LeaseResult =
      iface.staticAddress === undefined
        ? allocateAddress(next, pool, args)
        : reserveStaticAddress(next, pool, { ...args, address: iface.staticAddress });
    next = result.book;
    interfaces.push({ name: iface.name, lease: result.lease, pool });
  }
  const config = renderLxcNetwork({
    hostname: entry.network.hostname ?? container,
    interfaces,
    namespaceKeep: entry.lxc?.namespaceKeep,
  });
  return { book: next, leases: interfaces.map((i) => i.lease), config };
}
