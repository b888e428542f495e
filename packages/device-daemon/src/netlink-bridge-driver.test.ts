import { describe, expect, it } from 'vitest';
import type { BridgeDriver, RouteSocket } from './netlink-bridge-driver.js';
import { createLazyBridgeDriver, createNetlinkBridgeDriver } from './netlink-bridge-driver.js';
import { ERRNO } from './netlink-errno.js';
import { NLM_F, RTM } from './rtnetlink.js';
import { fakeRouteSocket } from './test-fakes.js';
import { linkMessage, routeMessage } from './test-netlink-messages.js';

/** A socket that answers link and route dumps (and only those) with the given bodies. */
function dumpingSocket(answers: { links: Uint8Array[]; routes: Uint8Array[] }): RouteSocket & {
  dumps: number[];
} {
  const socket = {
    dumps: [] as number[],
    async request(type: number, _body: Uint8Array, opts: { readonly flags: number }) {
      if (opts.flags !== NLM_F.DUMP) throw new Error(`unexpected request ${type}`);
      socket.dumps.push(type);
      const [answer, bodies] =
        type === RTM.GETLINK
          ? [RTM.NEWLINK, answers.links]
          : [RTM.NEWROUTE, type === RTM.GETROUTE ? answers.routes : []];
      return [bodies.map((data) => ({ type: answer, data })), undefined] as const;
    },
    close() {},
  };
  return socket;
}

function counted(fail = 0) {
  let opens = 0;
  let failures = fail;
  const socket = fakeRouteSocket();
  const open = async (): Promise<BridgeDriver> => {
    opens++;
    if (failures-- > 0) throw new Error('no netlink');
    return createNetlinkBridgeDriver(socket);
  };
  return { open, socket, opens: () => opens };
}

describe('createLazyBridgeDriver', () => {
  it('opens nothing until an operation needs the host, and closing it then opens nothing', () => {
    const c = counted();
    createLazyBridgeDriver(c.open).close();
    expect(c.opens()).toBe(0);
  });

  it('opens once, even for concurrent first operations, and closes what it opened', async () => {
    const c = counted();
    const d = createLazyBridgeDriver(c.open);
    const gw = { family: 4 as const, ip: 0x0a000501n, prefix: 24 };
    await Promise.all([
      d.ensureBridge({ bridge: 'pvbr0', addresses: [gw] }),
      d.ensureBridge({ bridge: 'pvbr1', addresses: [gw] }),
      d.deleteBridge('pvbr2'),
    ]);
    expect(c.opens()).toBe(1);
    expect(c.socket.types).toContain(RTM.NEWADDR);
    d.close();
    await Promise.resolve();
    expect(c.socket.closed).toBe(true);
  });

  it('tries again after a failed open', async () => {
    const c = counted(1);
    const d = createLazyBridgeDriver(c.open);
    await expect(d.deleteBridge('pvbr0')).rejects.toThrow('no netlink');
    await d.deleteBridge('pvbr0');
    expect(c.opens()).toBe(2);
  });
});

describe('createNetlinkBridgeDriver', () => {
  it('adds each family’s gateway to the bridge', async () => {
    const socket = fakeRouteSocket();
    await createNetlinkBridgeDriver(socket).ensureBridge({
      bridge: 'pvbr0',
      addresses: [
        { family: 4, ip: 0x0a000501n, prefix: 24 },
        { family: 6, ip: (0xfd000005n << 96n) | 1n, prefix: 64 },
      ],
    });
    expect(socket.types.filter((t) => t === RTM.NEWADDR)).toHaveLength(2);
  });

  it('names the errno of a refused request (EPERM), not its number', async () => {
    const socket = fakeRouteSocket({ errnoOf: (t) => (t === RTM.DELLINK ? ERRNO.EPERM : 0) });
    await expect(createNetlinkBridgeDriver(socket).deleteBridge('pvbr0')).rejects.toMatchObject({
      code: 'HostFailure',
      message: 'netlink delete bridge pvbr0: operation not permitted (EPERM)',
    });
  });

  it('names the errno of a failed dump', async () => {
    const socket = fakeRouteSocket({ errnoOf: (t) => (t === RTM.GETLINK ? ERRNO.EACCES : 0) });
    await expect(createNetlinkBridgeDriver(socket).listRoutes()).rejects.toMatchObject({
      code: 'HostFailure',
      message: 'netlink list links: permission denied (EACCES)',
    });
  });

  it('lists the ports of a bridge from a link dump, none for a missing bridge', async () => {
    const driver = createNetlinkBridgeDriver(
      dumpingSocket({
        links: [
          linkMessage({ index: 1, name: 'lo' }),
          linkMessage({ index: 7, name: 'pvbr0' }),
          linkMessage({ index: 9, name: 'veth-b', master: 7 }),
          linkMessage({ index: 8, name: 'veth-a', master: 7 }),
          linkMessage({ index: 10, name: 'veth-c', master: 11 }),
        ],
        routes: [],
      }),
    );
    expect(await driver.listPorts('pvbr0')).toEqual(['veth-a', 'veth-b']);
    expect(await driver.listPorts('pvbr9')).toEqual([]);
  });

  it('lists unicast routes outside the local table, with their interfaces by name', async () => {
    const socket = dumpingSocket({
      links: [linkMessage({ index: 2, name: 'eth0' }), linkMessage({ index: 5, name: 'eth1' })],
      routes: [
        routeMessage({ family: 4, prefix: 0, oif: 2, gateway: '192.0.2.1' }),
        routeMessage({ family: 4, dst: '10.0.3.0', prefix: 24, oif: 5 }),
        routeMessage({ family: 4, dst: '10.0.3.5', prefix: 32, oif: 5, table: 255, type: 2 }),
        routeMessage({ family: 4, dst: '10.0.9.0', prefix: 24, type: 6 }), // blackhole
        routeMessage({ family: 6, dst: 'fd00:5::', prefix: 64, table: 1000, nexthops: [5, 42] }),
      ],
    });
    const routes = await createNetlinkBridgeDriver(socket).listRoutes();
    expect(routes).toEqual([
      { family: 4, cidr: { version: 4, base: 0n, prefix: 0 }, interfaces: ['eth0'] },
      { family: 4, cidr: { version: 4, base: 0x0a000300n, prefix: 24 }, interfaces: ['eth1'] },
      {
        family: 6,
        cidr: { version: 6, base: 0xfd000005n << 96n, prefix: 64 },
        interfaces: ['eth1', '#42'],
      },
    ]);
    expect(socket.dumps).toEqual([RTM.GETLINK, RTM.GETROUTE]);
  });
});
