// Revisions that would break the host or running containers, refused for real in throwaway
// network namespaces: a state directory without device.json (a typo), one that drops a running
// container's lease and bridge (unless --force), a pool subnet already routed on another interface.
// Each refusal is one clear line, and the bridge, NAT and leases are as they were.
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BUNDLE,
  bundleApp,
  createHarness,
  links,
  lxcValue,
  masqueradeRules,
  requirePrerequisites,
  run,
  SNAPSHOT_ARGV,
  wireContainer,
} from './netns-harness.js';

const h = createHarness();
/** A client verb as an LXC hook or an operator runs it; its status and output, failing or not. */
const verb = (...args: string[]) =>
  spawnSync(process.execPath, [...SNAPSHOT_ARGV, ...args], { encoding: 'utf8' });

const internal = { bridge: 'nlbr0', subnet: '10.77.0.0/24', gateway: '10.77.0.1', nat: true };
const lab = { bridge: 'nlbr1', subnet: '10.78.0.0/24', gateway: '10.78.0.1' };
const edge = { bridge: 'nlbr2', subnet: '10.79.0.0/25', gateway: '10.79.0.126' };

beforeAll(() => {
  requirePrerequisites();
  bundleApp('netledger-device-host-safety-test');
});
afterAll(() => h.cleanup());

/** What a refusal must leave alone: the bridge with its gateway, up; NAT; the leases. */
async function hostState(ns: string, d: { client: { leases(): Promise<unknown> } }) {
  const bridge = links(ns).find((l) => l.ifname === 'nlbr0');
  return {
    bridge: bridge && {
      up: bridge.flags.includes('UP'),
      addresses: bridge.addr_info
        .filter((a) => a.family === 'inet')
        .map((a) => `${a.local}/${a.prefixlen}`),
    },
    masquerade: masqueradeRules(ns),
    leases: await d.client.leases(),
  };
}

/** A daemon serving the internal pool with container `app` started and wired to its bridge. */
async function withRunningContainer(tag: string) {
  const ns = h.netns(tag);
  const c = h.netns(`${tag}-c`);
  const state = h.state(tag, {
    pools: { internal },
    containers: { app: { network: { pool: 'internal' } } },
  });
  const d = await h.daemon({ ns, state, data: join(h.tmp, `data-${tag}`) });
  const start = verb('start', 'app', '--socket', d.socket);
  expect(start.status).toBe(0);
  wireContainer({ hostNs: ns, containerNs: c, lxc: start.stdout, hostVeth: 'veth-app' });
  const before = await hostState(ns, d);
  expect(before.bridge).toEqual({ up: true, addresses: ['10.77.0.1/24'] });
  expect(before.masquerade).toBe(1);
  const ping = () =>
    run('ip', [
      'netns',
      'exec',
      c,
      'ping',
      '-c',
      '1',
      '-W',
      '2',
      lxcValue(start.stdout, 'lxc.net.0.ipv4.gateway'),
    ]);
  ping();
  return { ns, d, before, ping };
}

describe('netledger-device apply refuses what would break the host', () => {
  it('refuses a state directory without device.json (CLI and API): bridge, NAT and leases untouched', async () => {
    const { ns, d, before, ping } = await withRunningContainer('typo');
    const typo = h.state('typo-dir', { deviceJson: null, containers: {} });
    const r = verb('apply', '--state', typo, '--socket', d.socket);
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([
      'netledger-device: InvalidDeviceJson: the revision has no device.json (a device without pools says so: {"network":{"pools":{}}})',
    ]);
    // The audit's reproduction through the API: POST /v1/apply {"state": "/etc"}.
    await expect(d.client.apply('/etc')).rejects.toMatchObject({ code: 'InvalidDeviceJson' });
    const empty = h.state('empty-dir', { deviceJson: '', containers: {} });
    expect(verb('apply', '--state', empty, '--socket', d.socket).stderr).toContain(
      'InvalidDeviceJson: device.json is empty',
    );
    expect(await hostState(ns, d)).toEqual(before);
    ping();
    await d.kill();
  });

  it('refuses a revision that drops a running container’s lease and bridge, naming them; --force applies it', async () => {
    const { ns, d, before, ping } = await withRunningContainer('drop');
    const next = h.state('drop-next', { pools: { lab } });
    const lease = (await d.client.leases()).leases[0];
    const r = verb('apply', '--state', next, '--socket', d.socket);
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([
      `netledger-device: DropsInUse: the revision would drop what running containers use: lease ${lease?.address} of running container app (pool internal, eth0); bridge nlbr0 of pool internal (ports veth-app); nothing was changed (force the apply to drop them: --force, or "force": true in the API)`,
    ]);
    expect(await hostState(ns, d)).toEqual(before);
    expect(links(ns).map((l) => l.ifname)).not.toContain('nlbr1');
    ping();

    const forced = verb('apply', '--state', next, '--socket', d.socket, '--force');
    expect(forced.stderr).toBe('');
    expect(forced.status).toBe(0);
    const names = links(ns).map((l) => l.ifname);
    expect(names).not.toContain('nlbr0');
    expect(names).toContain('nlbr1');
    expect(masqueradeRules(ns)).toBe(0);
    expect((await d.client.leases()).leases).toEqual([]);
    await d.kill();
  });

  it('refuses a pool whose subnet is already routed on another interface, naming both; no bridge is made', async () => {
    const ns = h.netns('route');
    // An uplink that holds the pool's subnet (a veth pair: the dummy module may be missing).
    run('ip', ['-n', ns, 'link', 'add', 'eth1', 'type', 'veth', 'peer', 'name', 'eth1-peer']);
    run('ip', ['-n', ns, 'addr', 'add', '10.77.0.5/24', 'dev', 'eth1']);
    run('ip', ['-n', ns, 'link', 'set', 'eth1-peer', 'up']);
    run('ip', ['-n', ns, 'link', 'set', 'eth1', 'up']);
    const conflict = h.state('route', { pools: { internal } });
    // At boot: the revision is refused, nothing is set up, the API serves and says why.
    const d = await h.daemon({ ns, state: conflict, data: join(h.tmp, 'data-route') });
    const message = 'pool internal 10.77.0.0/24: 10.77.0.0/24 is already routed via eth1';
    expect(await d.client.health()).toMatchObject({
      revision: false,
      refused: { code: 'RouteConflict', message, field: 'network.pools.internal.subnet' },
    });
    const r = verb('apply', '--state', conflict, '--socket', d.socket);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`netledger-device: RouteConflict: ${message}\n`);
    expect(links(ns).map((l) => l.ifname)).not.toContain('nlbr0');
    expect(masqueradeRules(ns)).toBe(0);
    const routes = run('ip', ['-n', ns, 'route', 'show', '10.77.0.0/24']).trim().split('\n');
    expect(routes).toEqual([expect.stringMatching(/^10\.77\.0\.0\/24 dev eth1 /)]);

    // Control: a pool clear of the host's routes gets its bridge.
    expect(
      verb('apply', '--state', h.state('clear', { pools: { lab } }), '--socket', d.socket),
    ).toMatchObject({ status: 0, stderr: '' });
    expect(links(ns).map((l) => l.ifname)).toContain('nlbr1');
    // A wider route counts too; lab's bridge, there before it, is not refused again.
    run('ip', ['-n', ns, 'route', 'add', '10.0.0.0/8', 'dev', 'eth1']);
    const wider = verb(
      'apply',
      '--state',
      h.state('wider', { pools: { lab, edge } }),
      '--socket',
      d.socket,
    );
    expect(wider.stderr).toBe(
      'netledger-device: RouteConflict: pool edge 10.79.0.0/25: 10.0.0.0/8 is already routed via eth1\n',
    );
    expect(links(ns).map((l) => l.ifname)).not.toContain('nlbr2');
    await d.kill();
  });
});

describe('netledger-device serve without the privilege to make a bridge', () => {
  it('names the kernel’s refusal: operation not permitted (EPERM), not errno 1', () => {
    const ns = h.netns('eperm');
    const user = `nl-dev-${randomBytes(3).toString('hex')}`;
    execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', user]);
    try {
      const uid = Number(execFileSync('id', ['-u', user], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', user], { encoding: 'utf8' }).trim());
      // The user reads the state and owns the directory for its data and socket.
      chmodSync(h.tmp, 0o755);
      const state = h.state('eperm', { pools: { internal } });
      const home = join(h.tmp, 'eperm-home');
      mkdirSync(home);
      chownSync(home, uid, gid);
      const r = spawnSync(
        'ip',
        [
          'netns',
          'exec',
          ns,
          'setpriv',
          `--reuid=${uid}`,
          `--regid=${gid}`,
          '--clear-groups',
          // It may read the checkout wherever it is (a 0700 home directory too), nothing more.
          '--inh-caps=+dac_read_search',
          '--ambient-caps=+dac_read_search',
          process.execPath,
          BUNDLE,
          'serve',
          '--state',
          state,
          '--data-dir',
          join(home, 'data'),
          '--socket',
          join(home, 'api.sock'),
        ],
        { encoding: 'utf8', timeout: 20_000 },
      );
      expect(r.status).toBe(3);
      expect(r.stderr.trim().split('\n').at(-1)).toBe(
        'netledger-device: HostFailure: netlink create bridge nlbr0: operation not permitted (EPERM)',
      );
      expect(r.stderr).not.toContain('errno');
    } finally {
      execFileSync('userdel', [user]);
    }
  });
});
