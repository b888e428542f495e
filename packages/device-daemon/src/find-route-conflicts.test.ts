import { parseCidr } from '@netledger/accounting';
import { describe, expect, it } from 'vitest';
import { findRouteConflicts, routeConflictError } from './find-route-conflicts.js';
import type { HostRoute } from './netlink-bridge-driver.js';
import { parseDeviceJson } from './parse-device-json.js';
import { deviceJson } from './test-fixtures.js';

const pools = parseDeviceJson(
  deviceJson({
    lan: { bridge: 'pvbr0', subnet: '10.0.3.0/24', gateway: '10.0.3.1' },
    six: { bridge: 'pvbr6', subnet6: 'fd00:6::/64', gateway6: 'fd00:6::1' },
  }),
);

function route(cidr: string, ...interfaces: string[]): HostRoute {
  const parsed = parseCidr(cidr);
  return { family: parsed.version, cidr: parsed, interfaces };
}

const conflicts = (routes: HostRoute[], own: string[] = ['pvbr0', 'pvbr6']) =>
  findRouteConflicts({ pools, routes, ownBridges: new Set(own) });

describe('findRouteConflicts', () => {
  it.each([
    ['the same subnet', route('10.0.3.0/24', 'eth1'), '10.0.3.0/24'],
    ['a wider route', route('10.0.0.0/8', 'wg0'), '10.0.0.0/8'],
    ['a narrower route', route('10.0.3.128/25', 'eth1'), '10.0.3.128/25'],
    ['a host route', route('10.0.3.7/32', 'tun0'), '10.0.3.7/32'],
  ])('finds %s on another interface', (_why, r, shown) => {
    expect(conflicts([r])).toEqual([
      { pool: 'lan', subnet: '10.0.3.0/24', key: 'subnet', route: shown, interfaces: r.interfaces },
    ]);
  });

  it('finds an IPv6 one, by family', () => {
    expect(conflicts([route('fd00::/16', 'eth1'), route('10.0.4.0/24', 'eth1')])).toMatchObject([
      { pool: 'six', key: 'subnet6', route: 'fd00::/16' },
    ]);
  });

  it.each([
    ['default routes', [route('0.0.0.0/0', 'eth0'), route('::/0', 'eth0')]],
    ['the daemon’s own bridge routes', [route('10.0.3.0/24', 'pvbr0')]],
    ['routes of a bridge of the pools in force', [route('10.0.3.0/24', 'oldbr')]],
    ['routes to other networks', [route('10.0.4.0/24', 'eth1'), route('192.168.0.0/16', 'eth1')]],
  ])('ignores %s', (_why, routes) => {
    expect(conflicts(routes, ['pvbr0', 'pvbr6', 'oldbr'])).toEqual([]);
  });

  it('does not check a pool whose route is already in place on its own bridge', () => {
    // Re-applying it adds no second route; a wider foreign route came after the bridge.
    expect(conflicts([route('10.0.3.0/24', 'pvbr0'), route('10.0.0.0/8', 'wg0')])).toEqual([]);
    // After a reboot the bridge and its route are gone: the bridge would add one, so it counts.
    expect(conflicts([route('10.0.0.0/8', 'wg0')])).toHaveLength(1);
    // Its route on another bridge of the daemon's is not its own.
    expect(conflicts([route('10.0.3.0/24', 'pvbr6'), route('10.0.0.0/8', 'wg0')])).toHaveLength(1);
  });

  it('counts a multipath route that leaves by any interface not the daemon’s', () => {
    expect(conflicts([route('10.0.3.0/24', 'pvbr0', 'eth1')])).toHaveLength(1);
  });
});

describe('routeConflictError', () => {
  it('names each pool, its subnet, the route and its interfaces, on the first pool’s field', () => {
    const e = routeConflictError(
      conflicts([route('10.0.3.0/24', 'eth1'), route('fd00:6::/64', 'eth2', 'eth3')]),
    );
    expect(e).toMatchObject({
      code: 'RouteConflict',
      message:
        'pool lan 10.0.3.0/24: 10.0.3.0/24 is already routed via eth1; pool six fd00:6::/64: fd00:6::/64 is already routed via eth2, eth3',
      field: 'network.pools.lan.subnet',
    });
  });
});
