import { createNetlink, Protocol } from 'netlink';
import { DeviceError } from './device-error.js';
import type { LinkInfo } from './rtnetlink.js';
import {
  decodeErrno,
  decodeLink,
  encodeIpv4Address,
  encodeLinkByName,
  encodeNewBridge,
  encodeSetLinkUp,
  NLM_F,
  NLMSG_ERROR,
  RTM,
} from './rtnetlink.js';

/** A bridge and the gateway address it carries. */
export interface BridgeAddress {
  readonly bridge: string;
  readonly ip: number;
  readonly prefix: number;
}

/** Host-side bridge operations; every one is idempotent. */
export interface BridgeDriver {
  /** Creates the bridge if missing, adds the address, brings it up. Throws `HostFailure`. */
  ensureBridge(args: BridgeAddress): Promise<void>;
  /** Removes an address from a bridge; a missing bridge or address is not an error. */
  removeAddress(args: BridgeAddress): Promise<void>;
  /** Deletes a bridge; a missing bridge is not an error. */
  deleteBridge(bridge: string): Promise<void>;
  close(): void;
}

const EEXIST = 17;
const ENODEV = 19;
const EADDRNOTAVAIL = 99;

/**
 * A {@link BridgeDriver} over an rtnetlink socket (the `netlink` package supplies the socket; the
 * messages are encoded by `rtnetlink.ts`). Acts on the network namespace of the calling process.
 */
export function createNetlinkBridgeDriver(): BridgeDriver {
  const socket = createNetlink(Protocol.ROUTE);

  async function call(
    type: number,
    body: Uint8Array,
    flags: number,
    what: string,
  ): Promise<{ errno: number; body: Uint8Array | undefined }> {
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
    throw new DeviceError('HostFailure', `netlink ${what}: errno ${errno}`);
  }

  async function getLink(name: string): Promise<LinkInfo | undefined> {
    const r = await call(RTM.GETLINK, encodeLinkByName(name), 0, `get link ${name}`);
    if (r.errno === ENODEV) return undefined;
    if (r.errno !== 0) fail(`get link ${name}`, r.errno);
    return r.body === undefined ? undefined : decodeLink(r.body);
  }

  return {
    async ensureBridge({ bridge, ip, prefix }) {
      let link = await getLink(bridge);
      if (link === undefined) {
        const r = await call(
          RTM.NEWLINK,
          encodeNewBridge(bridge),
          NLM_F.CREATE | NLM_F.EXCL,
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
      const addr = await call(
        RTM.NEWADDR,
        encodeIpv4Address({ index: link.index, ip, prefix }),
        NLM_F.CREATE | NLM_F.REPLACE,
        `address on ${bridge}`,
      );
      if (addr.errno !== 0 && addr.errno !== EEXIST) fail(`add address on ${bridge}`, addr.errno);
      if (!link.up) {
        const up = await call(RTM.NEWLINK, encodeSetLinkUp(link.index), 0, `bring up ${bridge}`);
        if (up.errno !== 0) fail(`bring up ${bridge}`, up.errno);
      }
    },
    async removeAddress({ bridge, ip, prefix }) {
      const link = await getLink(bridge);
      if (link === undefined) return;
      const r = await call(
        RTM.DELADDR,
        encodeIpv4Address({ index: link.index, ip, prefix }),
        0,
        `remove address on ${bridge}`,
      );
      if (r.errno !== 0 && r.errno !== EADDRNOTAVAIL) fail(`remove address on ${bridge}`, r.errno);
    },
    async deleteBridge(bridge) {
      const r = await call(RTM.DELLINK, encodeLinkByName(bridge), 0, `delete bridge ${bridge}`);
      if (r.errno !== 0 && r.errno !== ENODEV) fail(`delete bridge ${bridge}`, r.errno);
    },
    close() {
      socket.close();
    },
  };
}
