import type { HostRoute, RouteSocket } from './netlink-bridge-driver.js';
import { decodeRoute, encodeRouteDump, RT_TABLE_LOCAL, RTM, RTN_UNICAST } from './rtnetlink.js';
import { listLinks } from './route-links.js';
import { routeDump } from './route-request.js';

/**
 * The host's unicast routes to networks, in every table but `local`, each with its output
 * interfaces by name (`#<index>` for one that vanished meanwhile). Throws `HostFailure`.
 */
export async function listHostRoutes(socket: RouteSocket): Promise<HostRoute[]> {
  const links = await listLinks(socket);
  const names = new Map(links.map((l) => [l.index, l.name ?? `#${l.index}`]));
  const bodies = await routeDump(
    socket,
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
}
