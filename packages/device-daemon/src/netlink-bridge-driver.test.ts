import { describe, expect, it } from 'vitest';
import type { BridgeDriver } from './netlink-bridge-driver.js';
import { createLazyBridgeDriver, createNetlinkBridgeDriver } from './netlink-bridge-driver.js';
import { ERRNO } from './netlink-errno.js';
import { RTM } from './rtnetlink.js';
import { fakeRouteSocket } from './test-fakes.js';

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
});
