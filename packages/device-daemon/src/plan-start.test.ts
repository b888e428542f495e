import { describe, expect, it } from 'vitest';
import { EMPTY_LEASE_BOOK, leasesOfContainer } from './lease.js';
import type { LeaseBook } from './lease.js';
import { planStart } from './plan-start.js';
import { formatLxcNetwork } from './render-lxc-network.js';
import type { ContainerFixture } from './test-fixtures.js';
import { revisionOf, thrown } from './test-fixtures.js';

const pools = {
  internal: {
    type: 'bridge',
    bridge: 'pvbr0',
    subnet: '10.0.5.0/24',
    gateway: '10.0.5.1',
    nat: true,
  },
  tiny: { type: 'bridge', bridge: 'pvbr1', subnet: '10.0.6.0/30', gateway: '10.0.6.1' },
};

describe('planStart', () => {
  it('emits the LXC network config with the pool prefix, gateway, MAC and keep list without net', () => {
    const rev = revisionOf({
      pools,
      containers: {
        app: {
          network: { mode: 'pool', pool: 'internal', hostname: 'my-app' },
          lxc: 'lxc.namespace.keep = user net ipc\nlxc.rootfs.path = /x\n',
        },
      },
    });
    const plan = planStart(EMPTY_LEASE_BOOK, rev, 'app');
    expect(formatLxcNetwork(plan.config!)).toBe(
      [
        'lxc.uts.name = my-app',
        'lxc.net.0.type = veth',
        'lxc.net.0.link = pvbr0',
        'lxc.net.0.name = eth0',
        'lxc.net.0.ipv4.address = 10.0.5.2/24',
        'lxc.net.0.ipv4.gateway = 10.0.5.1',
        'lxc.net.0.hwaddr = 02:00:0a:00:05:02',
        'lxc.net.0.flags = up',
        'lxc.namespace.keep = user ipc',
        '',
      ].join('\n'),
    );
  });

  it('gives a bare static IP the pool prefix (LXC would pick a classful /8)', () => {
    const rev = revisionOf({
      pools,
      containers: { s: { network: { pool: 'internal', ip: '10.0.5.50' } } },
    });
    expect(planStart(EMPTY_LEASE_BOOK, rev, 's').config?.entries).toContainEqual([
      'lxc.net.0.ipv4.address',
      '10.0.5.50/24',
    ]);
  });

  it('does not refuse a static-IP container that is stopped and started again', () => {
    const rev = revisionOf({
      pools,
      containers: { s: { network: { pool: 'internal', ip: '10.0.5.50' } } },
    });
    const first = planStart(EMPTY_LEASE_BOOK, rev, 's');
    const second = planStart(first.book, rev, 's');
    expect(second.leases[0]?.address).toBe('10.0.5.50');
  });

  it('leaves a host-mode container alone', () => {
    const rev = revisionOf({
      pools,
      containers: { h: { network: { mode: 'host' }, lxc: 'lxc.net.0.type = none' } },
    });
    expect(planStart(EMPTY_LEASE_BOOK, rev, 'h')).toMatchObject({
      book: EMPTY_LEASE_BOOK,
      leases: [],
      config: undefined,
    });
  });

  it('allows lxc.namespace.keep = net in a pool container', () => {
    const rev = revisionOf({
      pools,
      containers: { a: { network: { pool: 'internal' }, lxc: 'lxc.namespace.keep = net' } },
    });
    expect(planStart(EMPTY_LEASE_BOOK, rev, 'a').config?.namespaceKeep).toBe('');
  });

  const exhaustedBook = (): LeaseBook => {
    const rev = revisionOf({ pools, containers: { filler: { network: { pool: 'tiny' } } } });
    return planStart(EMPTY_LEASE_BOOK, rev, 'filler').book;
  };

  // The reference's error table, one row each: the start is refused and no lease is left behind.
  it.each<[string, ContainerFixture, string]>([
    ['an undefined pool', { network: { pool: 'nope' } }, 'UnknownPool'],
    [
      'baked lxc.net.* entries',
      { network: { pool: 'internal' }, lxc: 'lxc.net.0.type = veth' },
      'BakedLxcNet',
    ],
    [
      'a static IP outside the pool subnet',
      { network: { pool: 'internal', ip: '10.9.9.9' } },
      'StaticOutsideSubnet',
    ],
    ['a static IP already in use', { network: { pool: 'tiny', ip: '10.0.6.2' } }, 'StaticInUse'],
    ['an exhausted pool', { network: { pool: 'tiny' } }, 'PoolExhausted'],
    ['an invalid run.json', { runJson: '{"network":{"mode":"pool"}}' }, 'InvalidRunJson'],
    [
      'an invalid lxc config',
      { network: { pool: 'internal' }, lxc: 'garbage' },
      'InvalidLxcConfig',
    ],
    [
      'a failing second interface (the first lease is rolled back)',
      { network: { interfaces: [{ pool: 'internal' }, { pool: 'tiny' }] } },
      'PoolExhausted',
    ],
  ])('refuses %s', (_why, fixture, code) => {
    const rev = revisionOf({
      pools,
      containers: { filler: { network: { pool: 'tiny' } }, c: fixture },
    });
    const book = exhaustedBook();
    expect(thrown(() => planStart(book, rev, 'c'))).toMatchObject({ code });
    expect(leasesOfContainer(book, 'c')).toEqual([]);
  });

  it('refuses a container outside the revision', () => {
    expect(thrown(() => planStart(EMPTY_LEASE_BOOK, revisionOf({ pools }), 'ghost'))).toMatchObject(
      { code: 'UnknownContainer' },
    );
  });

  it('gives two interfaces on the same pool two addresses', () => {
    const rev = revisionOf({
      pools,
      containers: { c: { network: { pool: 'internal', interfaces: [{}, {}] } } },
    });
    expect(
      planStart(EMPTY_LEASE_BOOK, rev, 'c').leases.map((l) => [l.interface, l.address]),
    ).toEqual([
      ['eth0', '10.0.5.2'],
      ['eth1', '10.0.5.3'],
    ]);
  });

  describe('with IPv6 pools', () => {
    const six = {
      dual: { ...pools.internal, subnet6: 'fd00:5::/64', gateway6: 'fd00:5::1' },
      v6: { bridge: 'pvbr6', subnet6: 'fd00:6::/64', gateway6: 'fd00:6::1' },
    };

    it('gives a dual-stack interface one lease per family, one MAC, and both families in the config', () => {
      const rev = revisionOf({ pools: six, containers: { app: { network: { pool: 'dual' } } } });
      const plan = planStart(EMPTY_LEASE_BOOK, rev, 'app');
      expect(formatLxcNetwork(plan.config!)).toBe(
        [
          'lxc.uts.name = app',
          'lxc.net.0.type = veth',
          'lxc.net.0.link = pvbr0',
          'lxc.net.0.name = eth0',
          'lxc.net.0.ipv4.address = 10.0.5.2/24',
          'lxc.net.0.ipv4.gateway = 10.0.5.1',
          'lxc.net.0.ipv6.address = fd00:5::2/64',
          'lxc.net.0.ipv6.gateway = fd00:5::1',
          'lxc.net.0.hwaddr = 02:00:0a:00:05:02',
          'lxc.net.0.flags = up',
          '',
        ].join('\n'),
      );
      expect(plan.leases.map((l) => l.mac)).toEqual(['02:00:0a:00:05:02', '02:00:0a:00:05:02']);
      // A restart gets the same leases back and changes nothing.
      expect(planStart(plan.book, rev, 'app').book).toBe(plan.book);
    });

    it('serves an IPv6-only pool with a static IPv6 address and a static MAC', () => {
      const rev = revisionOf({
        pools: six,
        containers: {
          app: {
            network: {
              pool: 'v6',
              interfaces: [{ ipv6_address: 'fd00:6::50/64', mac_address: '02:aa:00:00:00:01' }],
            },
          },
        },
      });
      const text = formatLxcNetwork(planStart(EMPTY_LEASE_BOOK, rev, 'app').config!);
      expect(text).not.toContain('ipv4');
      expect(text).toContain(
        'lxc.net.0.ipv6.address = fd00:6::50/64\nlxc.net.0.ipv6.gateway = fd00:6::1\n',
      );
      expect(text).toContain('lxc.net.0.hwaddr = 02:aa:00:00:00:01');
    });

    it('refuses a static address of a family the pool does not serve, leasing nothing', () => {
      const rev = revisionOf({
        pools: six,
        containers: { app: { network: { pool: 'v6', ip: '10.0.6.5' } } },
      });
      expect(thrown(() => planStart(EMPTY_LEASE_BOOK, rev, 'app'))).toMatchObject({
        code: 'StaticOutsideSubnet',
        message: expect.stringContaining("pool 'v6' has no IPv4 subnet"),
      });
    });
  });

  it('says "refusing to start" nowhere in the error itself (the log line says it once)', () => {
    const rev = revisionOf({ pools, containers: { x: { network: { pool: 'nope' } } } });
    expect(thrown(() => planStart(EMPTY_LEASE_BOOK, rev, 'x'))).toMatchObject({
      code: 'UnknownPool',
      message: "platform 'x' references unknown pool 'nope'",
    });
  });
});
