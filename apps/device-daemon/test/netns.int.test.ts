// Network tests: every host change happens inside throwaway namespaces made here.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import {
  BUNDLE,
  bundleApp,
  createHarness,
  links,
  lxcValue,
  masqueradeRules,
  netlinkSocketsOf,
  requirePrerequisites,
  run,
  SNAPSHOT_ARGV,
  wireContainer,
} from './netns-harness.js';

const h = createHarness();
const cli = (...args: string[]) => run(process.execPath, [BUNDLE, ...args]);
/** `start` as an LXC hook runs it through the launcher: from the client start-up snapshot. */
const startHook = (name: string, socket: string) =>
  run(process.execPath, [...SNAPSHOT_ARGV, 'start', name, '--socket', socket]);
const NETLINK_ROUTE = 0;

const pools = {
  internal: {
    type: 'bridge',
    bridge: 'nlbr0',
    subnet: '10.77.0.0/24',
    gateway: '10.77.0.1',
    nat: true,
  },
  lab: {
    type: 'bridge',
    bridge: 'nlbr1',
    subnet: '10.78.0.0/24',
    gateway: '10.78.0.1',
    nat: false,
  },
  edge: {
    type: 'bridge',
    bridge: 'nlbr2',
    subnet: '10.79.0.0/25',
    gateway: '10.79.0.126',
    nat: true,
  },
};

beforeAll(() => {
  requirePrerequisites();
  bundleApp('netledger-device-netns-test');
});
afterAll(() => h.cleanup());

describe('netledger-device in a network namespace', () => {
  it('creates each bridge with its gateway, up, and exactly one masquerade rule per NAT pool after two applies', async () => {
    const ns = h.netns('nft');
    const state = h.state('nft', { pools, containers: {} });
    const d = await h.daemon({ ns, state, data: join(h.tmp, 'data-nft') });
    cli('apply', '--socket', d.socket);
    cli('apply', '--state', state, '--socket', d.socket);
    const byName = new Map(links(ns).map((l) => [l.ifname, l]));
    for (const p of Object.values(pools)) {
      const link = byName.get(p.bridge);
      expect(link?.flags).toContain('UP');
      expect(
        link?.addr_info.filter((a) => a.family === 'inet').map((a) => `${a.local}/${a.prefixlen}`),
      ).toEqual([`${p.gateway}/${p.subnet.split('/')[1]}`]);
    }
    expect(masqueradeRules(ns)).toBe(2);
    expect(run('ip', ['netns', 'exec', ns, 'cat', '/proc/sys/net/ipv4/ip_forward']).trim()).toBe(
      '1',
    );
    // A revision without the edge pool: its bridge and rule go away.
    const { edge: _edge, ...rest } = pools;
    cli('apply', '--state', h.state('nft2', { pools: rest }), '--socket', d.socket);
    expect(links(ns).map((l) => l.ifname)).not.toContain('nlbr2');
    expect(masqueradeRules(ns)).toBe(1);
    await d.kill();
  });

  it('falls back to iptables when nft is not on PATH, installing the rule once', async () => {
    const ns = h.netns('ipt');
    const bin = join(h.tmp, 'only-iptables');
    mkdirSync(bin);
    symlinkSync(run('readlink', ['-f', '/usr/sbin/iptables']).trim(), join(bin, 'iptables'));
    const state = h.state('ipt', { pools: { internal: pools.internal } });
    const d = await h.daemon({ ns, state, data: join(h.tmp, 'data-ipt'), path: bin });
    cli('apply', '--socket', d.socket);
    const rules = run('ip', ['netns', 'exec', ns, 'iptables', '-t', 'nat', '-S', 'POSTROUTING'])
      .split('\n')
      .filter((l) => l.includes('MASQUERADE'));
    expect(rules).toEqual(['-A POSTROUTING -s 10.77.0.0/24 ! -o nlbr0 -j MASQUERADE']);
    expect(d.log()).toContain('NAT set up (iptables)');
    await d.kill();
  });

  it('warns without nft or iptables and the pool still serves same-pool traffic', async () => {
    const ns = h.netns('none');
    const c = h.netns('none-c');
    const bin = join(h.tmp, 'no-tools');
    mkdirSync(bin);
    const state = h.state('none', {
      pools: { internal: pools.internal },
      containers: { app: { network: { pool: 'internal' } } },
    });
    const d = await h.daemon({ ns, state, data: join(h.tmp, 'data-none'), path: bin });
    expect(d.log()).toMatch(/"level":"warning".*neither nftables \(nft\) nor iptables/);
    expect(d.log()).not.toContain('NAT set up');
    const lxc = cli('start', 'app', '--socket', d.socket);
    wireContainer({ hostNs: ns, containerNs: c, lxc, hostVeth: 'veth-app' });
    run('ip', [
      'netns',
      'exec',
      c,
      'ping',
      '-c',
      '1',
      '-W',
      '2',
      lxcValue(lxc, 'lxc.net.0.ipv4.gateway'),
    ]);
    await d.kill();
  });

  it('wires a container from the emitted config: it pings the gateway and reaches the uplink through NAT', async () => {
    const host = h.netns('e2e');
    const c = h.netns('e2e-c');
    const c2 = h.netns('e2e-c2');
    const up = h.netns('e2e-up');
    const state = h.state('e2e', {
      pools: { internal: pools.internal, lab: pools.lab },
      containers: {
        app: { network: { pool: 'internal', hostname: 'app' } },
        plain: { network: { pool: 'lab' } },
      },
    });
    const d = await h.daemon({ ns: host, state, data: join(h.tmp, 'data-e2e') });
    const lxc = startHook('app', d.socket);
    const lease = (await d.client.leases()).leases.find((l) => l.owner === 'app')!;
    expect(lxcValue(lxc, 'lxc.net.0.ipv4.address')).toBe(`${lease.address}/24`);
    expect(lxcValue(lxc, 'lxc.net.0.hwaddr')).toBe(lease.mac);
    wireContainer({ hostNs: host, containerNs: c, lxc, hostVeth: 'veth-app' });
    wireContainer({
      hostNs: host,
      containerNs: c2,
      lxc: cli('start', 'plain', '--socket', d.socket),
      hostVeth: 'veth-plain',
    });
    run('ip', ['netns', 'exec', c, 'ping', '-c', '1', '-W', '2', '10.77.0.1']);
    expect(links(c).find((l) => l.ifname === 'eth0')?.addr_info[0]?.local).toBe(lease.address);

    // The uplink namespace knows no route back to the pools: replies only come back through NAT.
    run('ip', [
      '-n',
      host,
      'link',
      'add',
      'uplink0',
      'type',
      'veth',
      'peer',
      'name',
      'eth0',
      'netns',
      up,
    ]);
    run('ip', ['-n', host, 'addr', 'add', '192.0.2.1/24', 'dev', 'uplink0']);
    run('ip', ['-n', host, 'link', 'set', 'uplink0', 'up']);
    run('ip', ['-n', up, 'addr', 'add', '192.0.2.2/24', 'dev', 'eth0']);
    run('ip', ['-n', up, 'link', 'set', 'eth0', 'up']);
    const server = spawn('ip', [
      'netns',
      'exec',
      up,
      process.execPath,
      '-e',
      "const s=require('net').createServer(c=>{console.log(c.remoteAddress);c.end();s.close()});s.listen(7777,'192.0.2.2',()=>console.log('listening'))",
    ]);
    let seen = '';
    server.stdout.setEncoding('utf8').on('data', (x: string) => (seen += x));
    for (let i = 0; !seen.includes('listening'); i++) {
      if (i > 100) throw new Error('uplink server did not start');
      await new Promise((r) => setTimeout(r, 50));
    }
    const connect = `const s=require('net').connect(7777,'192.0.2.2',()=>{s.end();process.exit(0)});s.on('error',()=>process.exit(1));setTimeout(()=>process.exit(2),2500)`;
    // Control: the lab pool has no NAT, so its container cannot complete a connection.
    expect(() => run('ip', ['netns', 'exec', c2, process.execPath, '-e', connect])).toThrow();
    run('ip', ['netns', 'exec', c, process.execPath, '-e', connect]);
    await new Promise((r) => server.once('exit', r));
    expect(seen.split('\n')[1]).toBe('192.0.2.1');
    await d.kill();
  });

  it('keeps every address across kill -9 and a restart that starts containers in another order', async () => {
    const ns = h.netns('crash');
    const names = ['a', 'b', 'c', 'd'];
    const containers = Object.fromEntries(names.map((n) => [n, { network: { pool: 'internal' } }]));
    const state = h.state('crash', {
      pools: { internal: pools.internal },
      containers: { ...containers, s: { network: { pool: 'internal', ip: '10.77.0.50' } } },
    });
    const data = join(h.tmp, 'data-crash');
    const d1 = await h.daemon({ ns, state, data });
    for (const n of [...names, 's']) await d1.client.start(n);
    await d1.client.stop('s');
    expect((await d1.client.start('s')).leases[0]?.address).toBe('10.77.0.50');
    const before = (await d1.client.leases()).leases;
    await d1.kill('SIGKILL');
    // The daemon itself died (ip netns exec and env exec it, so the pid is node's).
    await expect(d1.client.health()).rejects.toMatchObject({ code: 'DaemonUnavailable' });
    const d2 = await h.daemon({ ns, state, data });
    for (const n of ['s', ...names].reverse()) await d2.client.start(n);
    expect((await d2.client.leases()).leases).toEqual(before);
    await d2.kill();
  });

  it('opens no netlink socket without pools or network blocks, and one once a pool needs it', async () => {
    const ns = h.netns('zero');
    const state = h.state('zero', { containers: { plain: {} } });
    const d = await h.daemon({ ns, state, data: join(h.tmp, 'data-zero') });
    startHook('plain', d.socket);
    expect(netlinkSocketsOf(d.child.pid!)).toEqual([]);
    expect(run('ip', ['netns', 'exec', ns, 'nft', 'list', 'ruleset']).trim()).toBe('');
    // Control: the same daemon, given a pool, opens its rtnetlink socket.
    cli('apply', '--state', h.state('zero2', { pools: { lab: pools.lab } }), '--socket', d.socket);
    expect(netlinkSocketsOf(d.child.pid!)).toEqual([NETLINK_ROUTE]);
    await d.kill();
  });

  it('gives a container an IPv6 address on a dual-stack pool: it pings its IPv6 gateway, NAT66 when asked', async () => {
    const host = h.netns('v6');
    const c = h.netns('v6-c');
    const c6 = h.netns('v6-c6');
    const state = h.state('v6', {
      pools: {
        dual: { ...pools.internal, subnet6: 'fd00:77::/64', gateway6: 'fd00:77::1', nat6: true },
        only6: { bridge: 'nlbr6', subnet6: 'fd00:78::/120', gateway6: 'fd00:78::fe' },
      },
      containers: {
        app: { network: { pool: 'dual' } },
        six: { network: { pool: 'only6', interfaces: [{ ipv6_address: 'fd00:78::50' }] } },
        legacy: { lxc: 'lxc.net.0.ipv6.address = fd00:77::2/64' },
      },
    });
    const d = await h.daemon({ ns: host, state, data: join(h.tmp, 'data-v6') });
    // Both gateways on the bridge; the IPv6 one usable at once (not tentative).
    const bridge = links(host).find((l) => l.ifname === 'nlbr0')!;
    const v6 = bridge.addr_info.find((a) => a.family === 'inet6' && a.local === 'fd00:77::1');
    expect(v6).toMatchObject({ prefixlen: 64, nodad: true });
    expect(v6).not.toHaveProperty('tentative');
    expect(bridge.addr_info.some((a) => a.local === '10.77.0.1')).toBe(true);
    expect(masqueradeRules(host, 'ip')).toBe(1);
    expect(masqueradeRules(host, 'ip6')).toBe(1);
    expect(
      run('ip', ['netns', 'exec', host, 'sysctl', '-n', 'net.ipv6.conf.all.forwarding']).trim(),
    ).toBe('1');

    const lxc = startHook('app', d.socket);
    // fd00:77::2 is baked into legacy's config: reserved, so app gets ::3.
    expect(lxcValue(lxc, 'lxc.net.0.ipv6.address')).toBe('fd00:77::3/64');
    expect(lxcValue(lxc, 'lxc.net.0.ipv6.gateway')).toBe('fd00:77::1');
    wireContainer({ hostNs: host, containerNs: c, lxc, hostVeth: 'veth-app' });
    run('ip', ['netns', 'exec', c, 'ping', '-6', '-c', '1', '-W', '2', 'fd00:77::1']);
    run('ip', ['netns', 'exec', c, 'ping', '-c', '1', '-W', '2', '10.77.0.1']);

    const lxc6 = startHook('six', d.socket);
    expect(lxc6).not.toContain('ipv4');
    expect(lxcValue(lxc6, 'lxc.net.0.ipv6.address')).toBe('fd00:78::50/120');
    wireContainer({ hostNs: host, containerNs: c6, lxc: lxc6, hostVeth: 'veth-six' });
    run('ip', ['netns', 'exec', c6, 'ping', '-6', '-c', '1', '-W', '2', 'fd00:78::fe']);
    const leases = (await d.client.leases()).leases.filter((l) => l.owner === 'app');
    expect(leases.map((l) => [l.family, l.address])).toEqual([
      [4, '10.77.0.2'],
      [6, 'fd00:77::3'],
    ]);
    await d.kill();
  });

  it('boots on a refused revision by serving the previous one: bridges and NAT back after a reboot, unaffected starts served', async () => {
    const ns = h.netns('boot');
    const c = h.netns('boot-c');
    const containers = {
      app: { network: { pool: 'internal' } },
      plain: { network: { pool: 'lab' } },
    };
    const state = h.state('boot', {
      pools: { internal: pools.internal, lab: pools.lab },
      containers,
    });
    const data = join(h.tmp, 'data-boot');
    const d1 = await h.daemon({ ns, state, data });
    const app = (await d1.client.start('app')).leases[0];
    const plain = (await d1.client.start('plain')).leases[0];
    await d1.kill();
    // A "reboot": the kernel state is gone; the revision on disk now breaks the internal pool.
    run('ip', ['-n', ns, 'link', 'del', 'nlbr0']);
    run('ip', ['-n', ns, 'link', 'del', 'nlbr1']);
    run('ip', ['netns', 'exec', ns, 'nft', 'flush', 'ruleset']);
    writeFileSync(
      join(state, 'device.json'),
      JSON.stringify({
        network: {
          pools: { internal: { ...pools.internal, subnet: '10.77.0.0/33' }, lab: pools.lab },
        },
      }),
    );
    const d2 = await h.daemon({ ns, state, data });
    expect(await d2.client.health()).toMatchObject({
      ok: true,
      revision: true,
      refused: { code: 'InvalidPool', field: 'network.pools.internal.subnet' },
    });
    // The last good revision is on the host again.
    expect(links(ns).map((l) => l.ifname)).toEqual(expect.arrayContaining(['nlbr0', 'nlbr1']));
    expect(masqueradeRules(ns)).toBe(1);
    // A start on the unchanged pool is served with its old address, and it works.
    const lxc = startHook('plain', d2.socket);
    expect(lxcValue(lxc, 'lxc.net.0.ipv4.address')).toBe(`${plain?.address}/24`);
    wireContainer({ hostNs: ns, containerNs: c, lxc, hostVeth: 'veth-plain' });
    run('ip', ['netns', 'exec', c, 'ping', '-c', '1', '-W', '2', '10.78.0.1']);
    // A start on the pool the refused revision changes is refused, and keeps its lease.
    const refused = spawnSync(
      process.execPath,
      [...SNAPSHOT_ARGV, 'start', 'app', '--socket', d2.socket, '--output', 'json'],
      { encoding: 'utf8' },
    );
    expect(refused.status).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({ error: { code: 'RevisionRefused' } });
    expect((await d2.client.leases()).leases.find((l) => l.owner === 'app')).toEqual(app);
    expect(await d2.client.metrics()).toContain('netledger_device_revision_refused 1');
    expect(d2.log().match(/revision refused/g)).toHaveLength(1);
    // Fixing the revision brings it in.
    writeFileSync(
      join(state, 'device.json'),
      JSON.stringify({ network: { pools: { internal: pools.internal, lab: pools.lab } } }),
    );
    cli('apply', '--socket', d2.socket);
    expect(await d2.client.health()).not.toHaveProperty('refused');
    expect(startHook('app', d2.socket)).toContain(`${app?.address}/24`);
    await d2.kill();
  });
});
