import type { Cidr } from '@netledger/accounting';
import type { IpFamily } from './address.js';
import { DeviceError } from './device-error.js';
import { describeErrno, ERRNO } from './netlink-errno.js';
import type { LinkInfo } from './rtnetlink.js';
import {
  decodeErrno,
  decodeLink,
  decodeRoute,
  encodeAddress,
  encodeLinkByName,
  encodeLinkDump,
  encodeNewBridge,
  encodeRouteDump,
  encodeSetLinkUp,
  NLM_F,
  NLMSG_ERROR,
  RT_TABLE_LOCAL,
  RTM,
  RTN_UNICAST,
} from './rtnetlink.js';

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

const { EACCES, EADDRNOTAVAIL, EAFNOSUPPORT, EEXIST, ENODEV } = ERRNO;

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
  /** Sends one request (`flags` default none) and reads its answer; `what` names it in errors. */
  async function call(
    request: { readonly type: number; readonly body: Uint8Array; readonly flags?: number },
    what: string,
  ): Promise<{ errno: number; body: Uint8Array | undefined }> {
    const { type, body, flags = 0 } = request;
    let msgs;
    try {
      [msgs] = await socket.request(type, body, { flags, checkError: false, timeout: 5000 });
    } catch (e) {
      throw new DeviceError('HostFailure', `netlink ${what}: ${(e as Error).message}`, {
        cause: e,
      });
    }
    const first = msgs[0];
    if (first === undefined) return { errno: 0, body: undefined };
    if (first.type === NLMSG_ERROR) return { errno: decodeErrno(first.data), body: undefined };
    return { errno: 0, body: first.data };
  }

  function fail(what: string, errno: number): never {
    throw new DeviceError('HostFailure', `netlink ${what}: ${describeErrno(errno)}`);
  }

  /** Sends a dump request and returns the bodies of the answers of `answer` type. */
  async function dump(
    request: { readonly type: number; readonly body: Uint8Array; readonly answer: number },
    what: string,
  ): Promise<Uint8Array[]> {
    let msgs;
    try {
      [msgs] = await socket.request(request.type, request.body, {
        flags: NLM_F.DUMP,
        checkError: false,
        timeout: 5000,
      });
    } catch (e) {
      throw new DeviceError('HostFailure', `netlink ${what}: ${(e as Error).message}`, {
        cause: e,
      });
    }
    const first = msgs[0];
    if (first?.type === NLMSG_ERROR) {
      const errno = decodeErrno(first.data);
      if (errno !== 0) fail(what, errno);
    }
    return msgs.filter((m) => m.type === request.answer).map((m) => m.data);
  }

  async function listLinks(): Promise<LinkInfo[]> {
    const bodies = await dump(
      { type: RTM.GETLINK, body: encodeLinkDump(), answer: RTM.NEWLINK },
      'list links',
    );
    return bodies.map(decodeLink);
  }

  async function getLink(name: string): Promise<LinkInfo | undefined> {
    const r = await call({ type: RTM.GETLINK, body: encodeLinkByName(name) }, `get link ${name}`);
    if (r.errno === ENODEV) return undefined;
    if (r.errno !== 0) fail(`get link ${name}`, r.errno);
    return r.body === undefined ? undefined : decodeLink(r.body);
  }

  return {
    async ensureBridge({ bridge, addresses }) {
      let link = await getLink(bridge);
      if (link === undefined) {
        const r = await call(
          { type: RTM.NEWLINK, body: encodeNewBridge(bridge), flags: NLM_F.CREATE | NLM_F.EXCL },
          `create bridge ${bridge}`,
        );
        if (r.errno !== 0 && r.errno !== EEXIST) fail(`create bridge ${bridge}`, r.errno);
        link = await getLink(bridge);
        if (link === undefined)
          throw new DeviceError('HostFailure', `bridge ${bridge} vanished after creation`);
      }
      if (link.kind !== 'bridge')
        throw new DeviceError(
          'HostFailure',
          `${bridge} exists and is not a bridge (${link.kind ?? 'no kind'})`,
        );
      for (const a of addresses) {
        const what = `add IPv${a.family} address on ${bridge}`;
        const r = await call(
          {
            type: RTM.NEWADDR,
            body: encodeAddress({ index: link.index, ...a }),
            flags: NLM_F.CREATE | NLM_F.REPLACE,
          },
          what,
        );
        if (a.family === 6 && (r.errno === EAFNOSUPPORT || r.errno === EACCES)) {
          throw new DeviceError(
            'HostFailure',
            `netlink ${what}: ${describeErrno(r.errno)}; IPv6 disabled on this host or on ${bridge}?`,
          );
        }
        if (r.errno !== 0 && r.errno !== EEXIST) fail(what, r.errno);
      }
      if (!link.up) {
        const up = await call(
          { type: RTM.NEWLINK, body: encodeSetLinkUp(link.index) },
          `bring up ${bridge}`,
        );
        if (up.errno !== 0) fail(`bring up ${bridge}`, up.errno);
      }
    },
    async removeAddress({ bridge, address }) {
      const link = await getLink(bridge);
      if (link === undefined) return;
      const what = `remove IPv${address.family} address on ${bridge}`;
      const r = await call(
        { type: RTM.DELADDR, body: encodeAddress({ index: link.index, ...address }) },
        what,
      );
      if (r.errno !== 0 && r.errno !== EADDRNOTAVAIL) fail(what, r.errno);
    },
    async deleteBridge(bridge) {
      const r = await call(
        { type: RTM.DELLINK, body: encodeLinkByName(bridge) },
        `delete bridge ${bridge}`,
      );
      if (r.errno !== 0 && r.errno !== ENODEV) fail(`delete bridge ${bridge}`, r.errno);
    },
    async listPorts(bridge) {
      const links = await listLinks();
      const master = links.find((l) => l.name === bridge);
      if (master === undefined) return [];
      return links
        .filter((l) => l.master === master.index)
        .map((l) => l.name ?? `#${l.index}`)
        .sort();
    },
    async listRoutes() {
      const names = new Map((await listLinks()).map((l) => [l.index, l.name ?? `#${l.index}`]));
      const bodies = await dump(
        { type: RTM.GETROUTE, body: encodeRouteDump(), answer: RTM.NEWROUTE },
        'list routes',
      );
      const routes: HostRoute[] = [];
      for (const body of bodies) {
        const r = decodeRoute(body);
        if (r === undefined || r.type !== RTN_UNICAST || r.table === RT_TABLE_LOCAL) continue;
        routes.push({
          family: r.family,
          cidr: { version: r.family, base: r.dst, prefix: r.prefix },
          interfaces: r.interfaces.map((i) => names.get(i) ?? `#${i}`),
        });
      }
      return routes;
    },
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
