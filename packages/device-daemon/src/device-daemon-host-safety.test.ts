// The daemon refuses revisions that would break the host or running containers: no device.json
// (a typo'd state directory), dropping what running containers use (unless forced), and a pool
// subnet the host already routes elsewhere. Each refusal changes nothing.
import { parseCidr } from '@netledger/accounting';
import { describe, expect, it } from 'vitest';
import { createDeviceDaemon } from './device-daemon.js';
import type { HostRoute } from './netlink-bridge-driver.js';
import { revisionFiles } from './test-fixtures.js';
import { fakeDeps } from './test-fakes.js';

const internal = { bridge: 'pvbr0', subnet: '10.0.5.0/24', gateway: '10.0.5.1', nat: true };
const lab = { bridge: 'pvbr1', subnet: '10.0.6.0/24', gateway: '10.0.6.1' };
const files = revisionFiles({
  pools: { internal, lab },
  containers: { a: { network: { pool: 'internal' } }, c: { network: { pool: 'lab' } } },
});
/** The same containers with the internal pool gone: a's lease is released, pvbr0 deleted. */
const withoutInternal = revisionFiles({
  pools: { lab },
  containers: { c: { network: { pool: 'lab' } } },
});

function route(cidr: string, ...interfaces: string[]): HostRoute {
  const parsed = parseCidr(cidr);
  return { family: parsed.version, cidr: parsed, interfaces };
}

/** A daemon with `files` applied and `a` started (running), the host log cleared. */
async function running(f: ReturnType<typeof fakeDeps>) {
  const d = createDeviceDaemon(f.deps);
  await d.init();
  await d.apply(files);
  const lease = (await d.start('a')).leases[0];
  f.host.length = 0;
  return { d, lease, saves: f.store.saves, natCalls: f.natCalls.length };
}

describe('a revision without device.json', () => {
  it.each([
    ['no device.json', undefined, 'the revision has no device.json'],
    ['an empty device.json', '', 'device.json is empty'],
  ])(
    'is refused (%s): bridges, NAT and leases untouched, the revision in force serving',
    async (_why, deviceJson, message) => {
      const f = fakeDeps();
      const { d, lease, saves, natCalls } = await running(f);
      await expect(d.apply({ deviceJson, containers: [] })).rejects.toMatchObject({
        code: 'InvalidDeviceJson',
        message: expect.stringContaining(message),
      });
      expect(f.host).toEqual([]);
      expect(f.natCalls).toHaveLength(natCalls);
      expect(f.store.saves).toBe(saves);
      expect(d.pools().map((p) => p.name)).toEqual(['internal', 'lab']);
      expect(d.leases().find((l) => l.owner === 'a')).toEqual(lease);
      expect(d.health()).toMatchObject({ running: ['a'], refused: { code: 'InvalidDeviceJson' } });
      // a is not in the refused revision: the revision in force still serves it, same address.
      expect((await d.start('a')).leases[0]).toEqual(lease);
    },
  );
});

describe('a revision that drops what running containers use', () => {
  it('is refused naming the leases of running containers, changes nothing, and is applied when forced', async () => {
    const f = fakeDeps();
    const { d, lease, saves, natCalls } = await running(f);
    await expect(d.apply(withoutInternal)).rejects.toMatchObject({
      code: 'DropsInUse',
      message: expect.stringContaining(
        `lease ${lease?.address} of running container a (pool internal, eth0)`,
      ),
    });
    expect(f.host).toEqual([]);
    expect(f.natCalls).toHaveLength(natCalls);
    expect(f.store.saves).toBe(saves);
    expect(d.leases().some((l) => l.owner === 'a')).toBe(true);
    expect(d.health().refused).toMatchObject({ code: 'DropsInUse' });
    expect(await d.metrics()).toContain(
      'netledger_device_apply_failures_total{code="DropsInUse"} 1',
    );

    const report = await d.apply(withoutInternal, { force: true });
    expect(report.released.map((l) => l.owner)).toEqual(['a']);
    expect(f.host).toEqual(['delete pvbr0', 'ensure pvbr1/24']);
    expect(d.health().refused).toBeUndefined();
  });

  it('needs no force once the container is stopped', async () => {
    const f = fakeDeps();
    const { d } = await running(f);
    await d.stop('a');
    expect((await d.apply(withoutInternal)).released.map((l) => l.owner)).toEqual(['a']);
  });

  it('is refused when it deletes a bridge that has ports, even with no container known to run', async () => {
    const f = fakeDeps({ ports: { pvbr0: ['veth-a'] } });
    const d = createDeviceDaemon(f.deps);
    await d.init();
    await d.apply(files);
    await expect(d.apply(withoutInternal)).rejects.toMatchObject({
      code: 'DropsInUse',
      message: expect.stringContaining('bridge pvbr0 of pool internal (ports veth-a)'),
    });
    expect(f.host).toEqual(['ensure pvbr0/24', 'ensure pvbr1/24', 'forwarding']);
    // Moving the pool to another bridge deletes pvbr0 too.
    const moved = revisionFiles({
      pools: { internal: { ...internal, bridge: 'pvbr9' }, lab },
      containers: { a: { network: { pool: 'internal' } }, c: { network: { pool: 'lab' } } },
    });
    await expect(d.apply(moved)).rejects.toMatchObject({ code: 'DropsInUse' });
    f.ports['pvbr0'] = [];
    await d.apply(moved);
    expect(f.host.slice(3)).toEqual([
      'delete pvbr0',
      'ensure pvbr9/24',
      'ensure pvbr1/24',
      'forwarding',
    ]);
  });
});

describe('a pool subnet the host already routes through another interface', () => {
  it('is refused naming the interface and the route, and no bridge is created', async () => {
    const f = fakeDeps({ routes: [route('0.0.0.0/0', 'eth0'), route('10.0.5.0/24', 'eth1')] });
    const d = createDeviceDaemon(f.deps);
    await d.init();
    await expect(d.apply(files)).rejects.toMatchObject({
      code: 'RouteConflict',
      message: 'pool internal 10.0.5.0/24: 10.0.5.0/24 is already routed via eth1',
      field: 'network.pools.internal.subnet',
    });
    expect(f.host).toEqual([]);
    expect(f.natCalls).toEqual([]);
    expect(d.pools()).toEqual([]);
    expect(d.health().refused).toMatchObject({ code: 'RouteConflict' });
    // Force is about what running containers use: it does not make a second route acceptable.
    await expect(d.apply(files, { force: true })).rejects.toMatchObject({ code: 'RouteConflict' });
    // The uplink gives the subnet up: the same revision applies, and its own route is no conflict.
    f.routes.splice(1, 1, route('10.0.5.0/24', 'pvbr0'), route('10.0.6.0/24', 'pvbr1'));
    await d.apply(files);
    await d.apply(files);
    expect(d.pools().map((p) => p.name)).toEqual(['internal', 'lab']);
  });

  it('at boot: the last good revision is not restored over it; only starts that need no pool are served', async () => {
    const f = fakeDeps();
    const d1 = createDeviceDaemon(f.deps);
    await d1.init();
    await d1.apply(
      revisionFiles({
        pools: { internal },
        containers: { a: { network: { pool: 'internal' } }, quiet: {} },
      }),
    );
    await d1.start('a');
    // A reboot: the uplink now holds a route into the pool, and no state directory is given.
    const g = fakeDeps({
      initial: (await f.store.load())!,
      lastGood: (await f.revisions.load())!,
      routes: [route('10.0.0.0/16', 'eth1')],
    });
    const d2 = createDeviceDaemon(g.deps);
    await d2.init();
    expect(await d2.boot(undefined)).toMatchObject({
      inForce: 'none',
      refused: { code: 'RouteConflict' },
    });
    expect(g.host).toEqual([]);
    expect(g.logger.lines.map((l) => l.msg)).toContain(
      'the last good revision cannot be restored; no revision in force',
    );
    await expect(d2.start('a')).rejects.toMatchObject({ code: 'RevisionRefused' });
    expect(await d2.start('quiet')).toMatchObject({ leases: [], lxc: '' });
  });
});
