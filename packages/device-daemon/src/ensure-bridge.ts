import { DeviceError } from './device-error.js';
import type { GatewayAddress, RouteSocket } from './netlink-bridge-driver.js';
import { describeErrno, ERRNO } from './netlink-errno.js';
import type { LinkInfo } from './rtnetlink.js';
import { encodeAddress, encodeNewBridge, encodeSetLinkUp, NLM_F, RTM } from './rtnetlink.js';
import { getLink } from './route-links.js';
import { failNetlink, routeCall } from './route-request.js';

const { EACCES, EAFNOSUPPORT, EEXIST } = ERRNO;

/** The bridge named `bridge`, created when missing; throws `HostFailure` if it is another kind of link. */
async function bridgeLink(socket: RouteSocket, bridge: string): Promise<LinkInfo> {
  let link = await getLink(socket, bridge);
  if (link === undefined) {
    const r = await routeCall(
      socket,
      { type: RTM.NEWLINK, body: encodeNewBridge(bridge), flags: NLM_F.CREATE | NLM_F.EXCL },
      `create bridge ${bridge}`,
    );
    if (r.errno !== 0 && r.errno !== EEXIST) failNetlink(`create bridge ${bridge}`, r.errno);
    link = await getLink(socket, bridge);
    if (link === undefined)
      throw new DeviceError('HostFailure', `bridge ${bridge} vanished after creation`);
  }
  if (link.kind !== 'bridge')
    throw new DeviceError(
      'HostFailure',
      `${bridge} exists and is not a bridge (${link.kind ?? 'no kind'})`,
    );
  return link;
}

/** Adds (or replaces) one gateway address on the bridge; an IPv6 refusal says IPv6 may be off. */
async function addGateway(
  socket: RouteSocket,
  args: { readonly bridge: string; readonly link: LinkInfo; readonly address: GatewayAddress },
): Promise<void> {
  const { bridge, link, address: a } = args;
  const what = `add IPv${a.family} address on ${bridge}`;
  const r = await routeCall(
    socket,
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
  if (r.errno !== 0 && r.errno !== EEXIST) failNetlink(what, r.errno);
}

/**
 * Creates the bridge if missing, adds each gateway address, brings it up (each step idempotent).
 * Throws `HostFailure`; the steps already done stay (a retry completes them).
 */
export async function ensureBridge(
  socket: RouteSocket,
  args: { readonly bridge: string; readonly addresses: readonly GatewayAddress[] },
): Promise<void> {
  const { bridge } = args;
  const link = await bridgeLink(socket, bridge);
  for (const address of args.addresses) await addGateway(socket, { bridge, link, address });
  if (!link.up) {
    const up = await routeCall(
      socket,
      { type: RTM.NEWLINK, body: encodeSetLinkUp(link.index) },
      `bring up ${bridge}`,
    );
    if (up.errno !== 0) failNetlink(`bring up ${bridge}`, up.errno);
  }
}
