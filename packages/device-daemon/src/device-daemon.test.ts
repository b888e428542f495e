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
    expect(d.metrics()).toContain('netledger_device_start_refusals_total{code="UnknownPool"} 1');
  });

  it('tears down removed pools and redoes NAT when a revision drops them', async () => {
    const f = fakeDeps();
    const d = await daemonWith(f);
    await d.apply(files);
    await d.start('a');
    f.host.length = 0;
    await d.apply(
      revisionFiles({ pools: { lab }, containers: { c: { network: { pool: 'lab' } } } }),
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
    expect(d.pools().map((p) => p.name)).toEqual(['internal', 'lab']);
    expect((await d.start('a')).leases[0]?.address).toBe('10.0.5.3');
  });

  it('warns but serves the pool when no NAT tool works', async () => {
    const f = fakeDeps({ natBackend: 'none' });
    const d = await daemonWith(f);
    const report = await d.apply(files);
    expect(report.warnings).toHaveLength(1);
    expect(f.logger.lines.some((l) => l.level === 'warn')).toBe(true);
    expect((await d.start('a')).leases).toHaveLength(1);
  });

  it('refuses operations before a revision is applied', async () => {
    const d = await daemonWith(fakeDeps());
    await expect(d.start('a')).rejects.toMatchObject({ code: 'NoRevision' });
  });
});
