// A pool's bridge brings a route to the pool's subnet with it. When the host already routes that
// address space through another interface (an uplink holding 10.0.3.0/24, a VPN's 10.0.0.0/8),
// a second route makes the two fight over it, so such a revision is refused instead.
import { formatSubnet, subnetsOverlap } from './address.js';
import { DeviceError, fieldPath } from './device-error.js';
import type { HostRoute } from './netlink-bridge-driver.js';
import type { PoolRegistry } from './pool.js';
import { familiesOf } from './pool.js';

/** One pool subnet that overlaps a route of the host. */
export interface RouteConflict {
  readonly pool: string;
  /** The pool's subnet (canonical CIDR) and its device.json key (`subnet` or `subnet6`). */
  readonly subnet: string;
  readonly key: 'subnet' | 'subnet6';
  /** The host route's destination (canonical CIDR) and the interfaces it leaves by. */
  readonly route: string;
  readonly interfaces: readonly string[];
}

/**
 * The pool subnets of `pools` that overlap a route of `routes`, in pool order. Not conflicts:
 * default routes (prefix 0: they cover everything and every pool), and routes that leave only
 * by the daemon's own bridges (`ownBridges`: those of the pools in force and of `pools`, whose
 * routes the daemon makes and removes itself; pools among themselves are `PoolConflict`). A pool
 * subnet already routed via its own bridge is not checked: applying it adds no route.
 */
export function findRouteConflicts(args: {
  readonly pools: PoolRegistry;
  readonly routes: readonly HostRoute[];
  readonly ownBridges: ReadonlySet<string>;
}): RouteConflict[] {
  const foreign = args.routes.filter(
    (r) =>
      r.cidr.prefix > 0 &&
      (r.interfaces.length === 0 || r.interfaces.some((i) => !args.ownBridges.has(i))),
  );
  const out: RouteConflict[] = [];
  for (const pool of args.pools.values()) {
    for (const side of familiesOf(pool)) {
      const inPlace = args.routes.some(
        (r) =>
          r.cidr.version === side.cidr.version &&
          r.cidr.base === side.cidr.base &&
          r.cidr.prefix === side.cidr.prefix &&
          r.interfaces.length === 1 &&
          r.interfaces[0] === pool.bridge,
      );
      if (inPlace) continue;
      const route = foreign.find(
        (r) => r.family === side.family && subnetsOverlap(r.cidr, side.cidr),
      );
      if (route === undefined) continue;
      out.push({
        pool: pool.name,
        subnet: side.subnet,
        key: side.family === 4 ? 'subnet' : 'subnet6',
        route: formatSubnet(route.cidr),
        interfaces: route.interfaces,
      });
    }
  }
  return out;
}

/**
 * The `RouteConflict` refusal of conflicts (at least one), naming each pool, its subnet, the
 * route and its interfaces: `pool lan 10.0.3.0/24: 10.0.3.0/24 is already routed via eth1`.
 */
export function routeConflictError(conflicts: readonly RouteConflict[]): DeviceError {
  const first = conflicts[0];
  const text = conflicts
    .map(
      (c) =>
        `pool ${c.pool} ${c.subnet}: ${c.route} is already routed ${c.interfaces.length === 0 ? 'by a next-hop object' : `via ${c.interfaces.join(', ')}`}`,
    )
    .join('; ');
  return new DeviceError('RouteConflict', text, {
    field: first === undefined ? undefined : fieldPath('network', 'pools', first.pool, first.key),
  });
}
