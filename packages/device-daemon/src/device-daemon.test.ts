import { describe, expect, it } from 'vitest';
import { createDeviceDaemon } from './device-daemon.js';
import { revisionFiles } from './test-fixtures.js';
import { fakeDeps } from './test-fakes.js';

const internal = {
  type: 'bridge',
  bridge: 'pvbr0',
  subnet: '10.0.5.0/24',
  gateway: '10.0.5.1',
  nat: true,
};
const lab = {
  type: 'bridge',
  bridge: 'pvbr1',
  subnet: '10.0.6.0/24',
  gateway: '10.0.6.1',
  nat: false,
};
const files = revisionFiles({
  pools: { internal, lab },
  containers: {
    a: { network: { pool: 'internal' } },
    b: { network: { pool: 'internal' } },
    c: { network: { pool: 'lab', ip: '10.0.6.20' } },
    legacy: { lxc: 'lxc.net.0.ipv4.address = 10.0.5.2/24' },
  },
});

async function daemonWith(f: ReturnType<typeof fakeDeps>) {
  const d = createDeviceDaemon(f.deps);
  await d.init();
  return d;
}

describe('createDeviceDaemon', () => {
  it('has zero impact without pools or network blocks: no host change, two info lines', async () => {
    const f = fakeDeps();
    const d = await daemonWith(f);
    await d.apply(revisionFiles({ containers: { plain: {} } }));
    expect(await d.start('plain')).toMatchObject({ leases: [], lxc: '' });
    expect(f.host).toEqual([]);
    expect(f.natCalls).toEqual([]);
    expect(f.logger.lines.filter((l) => l.level === 'info').map((l) => l.msg)).toEqual([
      'IPAM subsystem initialized',
      'no network pools and no container network blocks: IPAM setup is a no-op',
    ]);
  });

  it('sets up a bridge per pool, NAT for NAT pools only, forwarding only with NAT', async () => {
    const f = fakeDeps();
    const d = await daemonWith(f);
    const report = await d.apply(files);
    expect(f.host).toEqual(['ensure pvbr0/24', 'ensure pvbr1/24', 'forwarding']);
    expect(f.natCalls.map((c) => c.pools.map((p) => p.name))).toEqual([['internal']]);
    expect(report.natBackend).toBe('nftables');
  });

  it('honours the reservation walk and keeps leases across a restart with another start order', async () => {
    const f = fakeDeps();
    const d1 = await daemonWith(f);
    await d1.apply(files);
    for (const c of ['a', 'b', 'c']) await d1.start(c);
    const before = d1.leases().filter((l) => l.kind !== 'reserved');
    expect(before.map((l) => [l.owner, l.address])).toEqual([
      ['a', '10.0.5.3'],
      ['b', '10.0.5.4'],
      ['c', '10.0.6.20'],
    ]);
    const persisted = await f.store.load();
    const g = fakeDeps({ initial: persisted! });
    const d2 = await daemonWith(g);
    await d2.apply(files);
    for (const c of ['c', 'b', 'a']) await d2.start(c);
    expect(d2.leases().filter((l) => l.kind !== 'reserved')).toEqual(before);
  });

  it('keeps leases on stop, releases them on teardown', async () => {
    const f = fakeDeps();
    const d = await daemonWith(f);
    await d.apply(files);
    const first = await d.start('a');
    await d.stop('a');
    expect((await d.start('a')).leases).toEqual(first.leases);
    expect((await d.teardown('a')).released).toEqual(first.leases);
    expect(d.leases().some((l) => l.owner === 'a')).toBe(false);
  });

  it('refuses a start without persisting anything, and counts it', async () => {
    const f = fakeDeps();
    const d = await daemonWith(f);
    await d.apply(
      revisionFiles({ pools: { internal }, containers: { x: { network: { pool: 'nope' } } } }),
    );
    const saves = f.store.saves;
    await expect(d.start('x')).rejects.toMatchObject({ code: 'UnknownPool' });
    expect(f.store.saves).toBe(saves);
    expect(await d.metrics()).toContain(
      'netledger_device_start_refusals_total{code="UnknownPool"} 1',
    );
    // One line, saying "refusing to start" once, with the error in the one error shape.
    const lines = f.logger.lines.filter((l) => l.level === 'error');
    expect(lines).toHaveLength(1);
    expect(JSON.stringify(lines[0]).match(/refusing to start/g)).toHaveLength(1);
    expect(lines[0]?.fields).toMatchObject({
      container: 'x',
      error: { code: 'UnknownPool', message: "platform 'x' references unknown pool 'nope'" },
    });
  });

  it('reports a container error as {code, message} in the apply report and the log', async () => {
    const f = fakeDeps();
    const d = await daemonWith(f);
    const report = await d.apply(
      revisionFiles({
        pools: { internal },
        containers: { bad: { runJson: '{"network":{"pool":5}}' } },
      }),
    );
    expect(report.containers).toEqual([
      {
        name: 'bad',
        mode: 'none',
        error: {
          code: 'InvalidRunJson',
          message: 'bad: network: pool must be a string, not a number',
        },
      },
    ]);
    expect(f.logger.lines.find((l) => l.level === 'error')?.fields).toMatchObject({
      container: 'bad',
      error: { code: 'InvalidRunJson' },
    });
  });

  it('tears down removed pools and redoes NAT when a revision drops them', async () => {
    const f = fakeDeps();
    const d = await daemonWith(f);
    await d.apply(files);
    await d.start('a');
    f.host.length = 0;
    // a runs: releasing its lease takes force.
    await d.apply(
      revisionFiles({ pools: { lab }, containers: { c: { network: { pool: 'lab' } } } }),
      { force: true },
    );
    expect(f.host).toEqual(['delete pvbr0', 'ensure pvbr1/24']);
    expect(f.natCalls.at(-1)).toMatchObject({ pools: [], previous: [{ name: 'internal' }] });
    expect(d.pools().map((p) => p.name)).toEqual(['lab']);
    expect(d.leases()).toEqual([]);
  });

  it('keeps the previous revision when device.json is invalid or a bridge fails', async () => {
    const f = fakeDeps({ failBridge: 'pvbr9' });
    const d = await daemonWith(f);
    await d.apply(files);
    await expect(d.apply({ deviceJson: '{', containers: [] })).rejects.toMatchObject({
      code: 'InvalidDeviceJson',
    });
    const bad = revisionFiles({
      pools: { other: { ...lab, bridge: 'pvbr9', subnet: '10.0.9.0/24', gateway: '10.0.9.1' } },
    });
    await expect(d.apply(bad)).rejects.toMatchObject({ code: 'HostFailure' });
    expect(
      f.logger.lines.filter((l) => l.msg.startsWith('host network set-up failed')),
    ).toHaveLength(1);
    expect(d.pools().map((p) => p.name)).toEqual(['internal', 'lab']);
    expect((await d.start('a')).leases[0]?.address).toBe('10.0.5.3');
  });

  it('warns but serves the pool when no NAT tool works', async () => {
    const f = fakeDeps({ natBackend: 'none' });
    const d = await daemonWith(f);
    const report = await d.apply(files);
    expect(report.warnings).toHaveLength(1);
    expect(f.logger.lines.some((l) => l.level === 'warn')).toBe(true);
    // Nothing was set up, so no "NAT set up (none)" line.
    expect(f.logger.lines.map((l) => l.msg).filter((m) => m.startsWith('NAT set up'))).toEqual([]);
    expect((await d.start('a')).leases).toHaveLength(1);
  });

  it('refuses operations before a revision is applied', async () => {
    const d = await daemonWith(fakeDeps());
    await expect(d.start('a')).rejects.toMatchObject({ code: 'NoRevision' });
  });
});

describe('a refused revision', () => {
  // internal changes its subnet to a /33 (refused); lab stays as it was.
  const bad = revisionFiles({
    pools: { internal: { ...internal, subnet: '10.0.5.0/33' }, lab },
    containers: {
      a: { network: { pool: 'internal' } },
      b: { network: { pool: 'internal' } },
      c: { network: { pool: 'lab', ip: '10.0.6.20' } },
      legacy: { lxc: 'lxc.net.0.ipv4.address = 10.0.5.2/24' },
      fresh: { network: { pool: 'lab' } },
      quiet: {},
    },
  });

  it('is logged once with its code and field, shown by health and metrics, and forgotten after a good apply', async () => {
    const f = fakeDeps();
    const d = await daemonWith(f);
    await d.apply(files);
    for (let i = 0; i < 3; i++)
      await expect(d.apply(bad)).rejects.toMatchObject({
        code: 'InvalidPool',
        field: 'network.pools.internal.subnet',
      });
    const refusals = f.logger.lines.filter((l) => l.msg.startsWith('revision refused'));
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toMatchObject({
      level: 'error',
      fields: { error: { code: 'InvalidPool', field: 'network.pools.internal.subnet' } },
    });
    expect(refusals[0]?.fields?.['error']).toMatchObject({
      message: expect.stringContaining('/33'),
    });
    expect(d.health().refused).toMatchObject({ code: 'InvalidPool' });
    const text = await d.metrics();
    expect(text).toContain('netledger_device_revision_refused 1');
    expect(text).toContain('netledger_device_apply_failures_total{code="InvalidPool"} 3');
    // Another refused revision is a new line.
    await expect(d.apply({ deviceJson: '{', containers: [] })).rejects.toMatchObject({
      code: 'InvalidDeviceJson',
    });
    expect(f.logger.lines.filter((l) => l.msg.startsWith('revision refused'))).toHaveLength(2);
    await d.apply(files);
    expect(d.health().refused).toBeUndefined();
    expect(await d.metrics()).toContain('netledger_device_revision_refused 0');
  });

  it('refuses only the starts that need what it changes', async () => {
    const f = fakeDeps();
    const d = await daemonWith(f);
    await d.apply(files);
    const kept = await d.start('a');
    await expect(d.apply(bad)).rejects.toMatchObject({ code: 'InvalidPool' });
    const saves = f.store.saves;
    // a uses the changed pool: refused, naming the pool and the refusal.
    await expect(d.start('a')).rejects.toMatchObject({
      code: 'RevisionRefused',
      message: expect.stringContaining("uses pool 'internal'"),
    });
    // c is unchanged on an unchanged pool: served by the last good revision.
    expect((await d.start('c')).leases.map((l) => l.address)).toEqual(['10.0.6.20']);
    // fresh is new and uses a pool: it needs the refused revision.
    await expect(d.start('fresh')).rejects.toMatchObject({ code: 'RevisionRefused' });
    // quiet is new and asks IPAM for nothing.
    expect(await d.start('quiet')).toMatchObject({ leases: [], lxc: '' });
    expect(f.store.saves).toBe(saves + 1);
    expect(d.leases().find((l) => l.owner === 'a')?.address).toBe(kept.leases[0]?.address);
    expect(await d.metrics()).toContain(
      'netledger_device_start_refusals_total{code="RevisionRefused"} 2',
    );
  });

  it('taints every pool when device.json cannot be read at all', async () => {
    const d = await daemonWith(fakeDeps());
    await d.apply(files);
    await expect(d.apply({ ...files, deviceJson: '{"network":' })).rejects.toMatchObject({
      code: 'InvalidDeviceJson',
    });
    await expect(d.start('c')).rejects.toMatchObject({ code: 'RevisionRefused' });
  });

  it('taints both pools of a conflict, and a pool it removes', async () => {
    const d = await daemonWith(fakeDeps());
    await d.apply(files);
    const clash = revisionFiles({
      pools: {
        lab,
        other: { ...lab, subnet: '10.0.6.0/25', gateway: '10.0.6.1', bridge: 'pvbr9' },
      },
      containers: {
        a: { network: { pool: 'internal' } },
        c: { network: { pool: 'lab', ip: '10.0.6.20' } },
      },
    });
    await expect(d.apply(clash)).rejects.toMatchObject({ code: 'PoolConflict' });
    await expect(d.start('c')).rejects.toMatchObject({ code: 'RevisionRefused' });
    await expect(d.start('a')).rejects.toMatchObject({ code: 'RevisionRefused' });
  });

  it('at boot keeps the last good revision: its bridges set up again, its starts served', async () => {
    const f = fakeDeps();
    const d1 = await daemonWith(f);
    await d1.boot(files);
    const a = await d1.start('a');
    // A reboot onto the bad revision: leases and the last good revision come from the stores.
    const g = fakeDeps({ initial: (await f.store.load())!, lastGood: (await f.revisions.load())! });
    const d2 = await daemonWith(g);
    expect(await d2.boot(bad)).toMatchObject({
      inForce: 'last-good',
      refused: { code: 'InvalidPool' },
    });
    expect(g.host).toEqual(['ensure pvbr0/24', 'ensure pvbr1/24', 'forwarding']);
    expect(d2.health()).toMatchObject({
      revision: true,
      refused: { field: 'network.pools.internal.subnet' },
    });
    expect((await d2.start('c')).leases[0]?.address).toBe('10.0.6.20');
    await expect(d2.start('a')).rejects.toMatchObject({ code: 'RevisionRefused' });
    expect(d2.leases().find((l) => l.owner === 'a')?.address).toBe(a.leases[0]?.address);
  });

  it('at a first boot with no last good revision serves what needs no pool', async () => {
    const f = fakeDeps();
    const d = await daemonWith(f);
    expect(await d.boot(bad)).toMatchObject({ inForce: 'none', refused: { code: 'InvalidPool' } });
    expect(f.host).toEqual([]);
    await expect(d.start('c')).rejects.toMatchObject({ code: 'RevisionRefused' });
    expect(await d.start('quiet')).toMatchObject({ lxc: '' });
  });

  it('persists the last good revision and the leases only when they change', async () => {
    const f = fakeDeps();
    const d = await daemonWith(f);
    await d.apply(files);
    await d.start('a');
    const saves = f.store.saves;
    await d.apply(files);
    await d.start('a');
    expect(f.store.saves).toBe(saves);
    expect(f.revisions.saves).toBe(1);
    await expect(d.apply(bad)).rejects.toMatchObject({ code: 'InvalidPool' });
    expect(f.revisions.saves).toBe(1);
    expect(await f.revisions.load()).toEqual(files);
  });

  it('boots on the last good revision when no state directory is given', async () => {
    const g = fakeDeps({ lastGood: files });
    const d = await daemonWith(g);
    expect(await d.boot(undefined)).toMatchObject({ inForce: 'last-good', refused: undefined });
    expect((await d.start('a')).leases).toHaveLength(1);
  });
});

describe('IPv6 pools', () => {
  const dual = { ...internal, subnet6: 'fd00:5::/64', gateway6: 'fd00:5::1', nat6: true };
  const six = { bridge: 'pvbr6', subnet6: 'fd00:6::/64', gateway6: 'fd00:6::1' };

  it('puts both gateways on the bridge, forwards IPv6 only with nat6, and leases per family', async () => {
    const f = fakeDeps();
    const d = await daemonWith(f);
    await d.apply(
      revisionFiles({
        pools: { dual, six },
        containers: {
          a: { network: { pool: 'dual' } },
          v6: { network: { pool: 'six', interfaces: [{ ipv6_address: 'fd00:6::50' }] } },
        },
      }),
    );
    expect(f.host).toEqual(['ensure pvbr0/24/64', 'ensure pvbr6/64', 'forwarding', 'forwarding6']);
    const a = await d.start('a');
    expect(a.leases.map((l) => [l.family, l.address, l.mac])).toEqual([
      [4, '10.0.5.2', '02:00:0a:00:05:02'],
      [6, 'fd00:5::2', '02:00:0a:00:05:02'],
    ]);
    expect(a.lxc).toContain(
      'lxc.net.0.ipv6.address = fd00:5::2/64\nlxc.net.0.ipv6.gateway = fd00:5::1\n',
    );
    const v6 = await d.start('v6');
    expect(v6.lxc).not.toContain('ipv4');
    expect(v6.lxc).toContain('lxc.net.0.ipv6.address = fd00:6::50/64');
    expect(d.pools().find((p) => p.name === 'dual')).toMatchObject({
      capacity: 253,
      leased: 1,
      ipv6: { leased: 1, reserved: 0 },
    });
    expect(d.pools().find((p) => p.name === 'six')).not.toHaveProperty('capacity');
    expect(await d.metrics()).toContain('netledger_device_pool_leased{pool="dual",family="6"} 1');
  });

  it('removes only the IPv6 gateway when a pool drops its subnet6', async () => {
    const f = fakeDeps();
    const d = await daemonWith(f);
    await d.apply(
      revisionFiles({ pools: { dual }, containers: { a: { network: { pool: 'dual' } } } }),
    );
    await d.start('a');
    await d.stop('a'); // a stopped container's lease is not in use: no force needed
    f.host.length = 0;
    await d.apply(
      revisionFiles({
        pools: { dual: internal },
        containers: { a: { network: { pool: 'dual' } } },
      }),
    );
    expect(f.host).toEqual(['unaddr pvbr0 v6', 'ensure pvbr0/24', 'forwarding']);
    expect(d.leases().map((l) => l.family)).toEqual([4]);
  });
});
