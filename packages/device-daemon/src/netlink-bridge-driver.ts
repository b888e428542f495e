import type { Cidr } from '@netledger/accounting';
import type { IpFamily } from './address.js';
import { DeviceError } from './device-error.js';
import { ensureBridge } from './ensure-bridge.js';
import { listHostRoutes } from './list-host-routes.js';
import { ERRNO } from './netlink-errno.js';
import { getLink, listLinks } from './route-links.js';
import { failNetlink, routeCall } from './route-request.js';
import { encodeAddress, encodeLinkByName, RTM } from './rtnetlink.js';

/** A gateway address of a pool family, as it sits on the pool's bridge. */
export interface GatewayAddress {
  readonly family: IpFamily;
  readonly ip: bigint;
  readonly prefix: number;
}

/** A route to a network on the host: its destination and the interfaces it leaves by. */
export interface HostRoute {
  readonly family: IpFamily;
  readonly cidr: Cidr;
  /** The output interfaces by name (`#<index>` for one that vanished meanwhile). */
  readonly interfaces: readonly string[];
}

/** Host-side bridge operations (every change is idempotent), and what the host's links and routes are. */
export interface BridgeDriver {
  /** Creates the bridge if missing, adds each gateway address, brings it up. Throws `HostFailure`. */
  ensureBridge(args: {
    readonly bridge: string;
    readonly addresses: readonly GatewayAddress[];
  }): Promise<void>;
  /** Removes an address from a bridge; a missing bridge or address is not an error. */
  removeAddress(args: { readonly bridge: string; readonly address: GatewayAddress }): Promise<void>;
  /** Deletes a bridge; a missing bridge is not an error. */
  deleteBridge(bridge: string): Promise<void>;
  /** The names of the links enslaved to `bridge` (its ports); none for a missing bridge. Throws `HostFailure`. */
  listPorts(bridge: string): Promise<readonly string[]>;
  /**
   * The host's unicast routes to networks, in every table but `local` (which holds the host's own
   * addresses, not routes); default routes included. Throws `HostFailure`.
   */
  listRoutes(): Promise<readonly HostRoute[]>;
  /** Closes the driver's socket, if it opened one. */
  close(): void;
}

/** The part of a `netlink` NETLINK_ROUTE socket the driver uses. */
export interface RouteSocket {
  request(
    type: number,
    body: Uint8Array,
    opts: { readonly flags: number; readonly checkError: false; readonly timeout: number },
  ): Promise<readonly [readonly { readonly type: number; readonly data: Uint8Array }[], unknown]>;
  close(): void;
}

/**
 * Opens a NETLINK_ROUTE socket with the `netlink` package, loaded on this first call (its native
 * addon stays unloaded in a daemon that never needs a bridge). Throws `HostFailure`.
 */
export async function openRouteSocket(): Promise<RouteSocket> {
  try {
    const { createNetlink, Protocol } = await import('netlink');
    return createNetlink(Protocol.ROUTE);
  } catch (e) {
    throw new DeviceError('HostFailure', `cannot open a netlink socket: ${(e as Error).message}`, {
      cause: e,
    });
  }
}

/**
 * A {@link BridgeDriver} over an rtnetlink socket (the messages are encoded by `rtnetlink.ts`).
 * Acts on the network namespace the socket was opened in.
 */
export function createNetlinkBridgeDriver(socket: RouteSocket): BridgeDriver {
  return {
    ensureBridge: (args) => ensureBridge(socket, args),
    async removeAddress({ bridge, address }) {
      const link = await getLink(socket, bridge);
      if (link === undefined) return;
      const what = `remove IPv${address.family} address on ${bridge}`;
      const r = await routeCall(
        socket,
        { type: RTM.DELADDR, body: encodeAddress({ index: link.index, ...address }) },
        what,
      );
      if (r.errno !== 0 && r.errno !== ERRNO.EADDRNOTAVAIL) failNetlink(what, r.errno);
    },
    async deleteBridge(bridge) {
      const r = await routeCall(
        socket,
        { type: RTM.DELLINK, body: encodeLinkByName(bridge) },
        `delete bridge ${bridge}`,
      );
      if (r.errno !== 0 && r.errno !== ERRNO.ENODEV)
        failNetlink(`delete bridge ${bridge}`, r.errno);
    },
    async listPorts(bridge) {
      const links = await listLinks(socket);
      const master = links.find((l) => l.name === bridge);
      if (master === undefined) return [];
      return links
        .filter((l) => l.master === master.index)
        .map((l) => l.name ?? `#${l.index}`)
        .sort();
    },
    listRoutes: () => listHostRoutes(socket),
    close() {
      socket.close();
    },
  };
}

/**
 * A {@link BridgeDriver} that opens its real driver on the first operation that needs one (a
 * device without pools never opens a netlink socket), at most once even under concurrent calls.
 * A failed open is not kept: the next operation tries again. `close()` closes only what was opened.
 */
export function createLazyBridgeDriver(open: () => Promise<BridgeDriver>): BridgeDriver {
  let opening: Promise<BridgeDriver> | undefined;
  const driver = (): Promise<BridgeDriver> => {
    opening ??= open().catch((e: unknown) => {
      opening = undefined;
      throw e;
    });
    return opening;
  };
  return {
    ensureBridge: async (args) => (await driver()).ensureBridge(args),
    removeAddress: async (args) => (await driver()).removeAddress(args),
    deleteBridge: async (bridge) => (await driver()).deleteBridge(bridge),
    listPorts: async (bridge) => (await driver()).listPorts(bridge),
    listRoutes: async () => (await driver()).listRoutes(),
    close() {
      const pending = opening;
      opening = undefined;
      // Also closes a driver whose open is still under way.
      void pending?.then(
        (d) => d.close(),
        () => undefined,
      );
    },
  };
}
