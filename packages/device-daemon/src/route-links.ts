import type { RouteSocket } from './netlink-bridge-driver.js';
import { ERRNO } from './netlink-errno.js';
import type { LinkInfo } from './rtnetlink.js';
import { decodeLink, encodeLinkByName, encodeLinkDump, RTM } from './rtnetlink.js';
import { failNetlink, routeCall, routeDump } from './route-request.js';

/** Every link of the socket's network namespace. Throws `HostFailure`. */
export async function listLinks(socket: RouteSocket): Promise<LinkInfo[]> {
  const bodies = await routeDump(
    socket,
    { type: RTM.GETLINK, body: encodeLinkDump(), answer: RTM.NEWLINK },
    'list links',
  );
  return bodies.map(decodeLink);
}

/** The link named `name`, or undefined when there is none. Throws `HostFailure`. */
export async function getLink(socket: RouteSocket, name: string): Promise<LinkInfo | undefined> {
  const r = await routeCall(
    socket,
    { type: RTM.GETLINK, body: encodeLinkByName(name) },
    `get link ${name}`,
  );
  if (r.errno === ERRNO.ENODEV) return undefined;
  if (r.errno !== 0) failNetlink(`get link ${name}`, r.errno);
  return r.body === undefined ? undefined : decodeLink(r.body);
}
