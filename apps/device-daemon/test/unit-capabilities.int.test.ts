// The systemd unit gives the daemon root with CapabilityBoundingSet= alone (and NoNewPrivileges=).
// Without a running systemd, setpriv applies the same bounding set to the staged launcher in a
// throwaway netns, and this shows that those capabilities are all the daemon needs (bridge over
// rtnetlink, nft, iptables-legacy, the forwarding sysctl) and that each one is needed.
// Needs root, iproute2, nftables, iptables (with xtables-legacy-multi) and util-linux's setpriv.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDeviceClient } from '@netledger/device-daemon/client';
import { onPath } from '@netledger/testkit';
import { buildApp } from './build-app.js';
import {
  createHarness,
  links,
  masqueradeRules,
  requirePrerequisites,
  run,
} from './netns-harness.js';
import type { StagedInstall } from './stage-install.js';
import { stageInstall } from './stage-install.js';

const BUILD = 'unit-caps-test';
const LEGACY = '/usr/sbin/xtables-legacy-multi';

let h: ReturnType<typeof createHarness>;
let install: StagedInstall;
let unitCaps: string[];
const children: ChildProcess[] = [];

beforeAll(() => {
  requirePrerequisites();
  if (!onPath('setpriv')) throw new Error('missing setpriv: apt-get install -y util-linux');
  if (!existsSync(LEGACY)) throw new Error(`missing ${LEGACY}: apt-get install -y iptables`);
  buildApp(BUILD);
});

beforeEach(() => {
  h = createHarness();
  install = stageInstall({ build: BUILD, dir: join(h.tmp, 'root') });
  const line = /^CapabilityBoundingSet=(.*)$/m.exec(readFileSync(install.unit, 'utf8'));
  unitCaps = (line?.[1] ?? '').trim().split(/\s+/);
  expect(readFileSync(install.unit, 'utf8')).toMatch(/^NoNewPrivileges=yes$/m);
});

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  h.cleanup();
});

/** `serve` through the staged launcher in `ns`, as root with only `caps` in its bounding set. */
async function serve(opts: { caps: readonly string[]; path: string; tag: string }) {
  const ns = h.netns(opts.tag);
  const state = h.state(`state-${opts.tag}`, {
    pools: { lan: { bridge: 'nlcap0', subnet: '10.79.0.0/24', gateway: '10.79.0.1', nat: true } },
    containers: { app: { network: { pool: 'lan' } } },
  });
  const socket = join(h.tmp, `${opts.tag}.sock`);
  const bounding = ['-all', ...opts.caps.map((c) => `+${c.replace(/^CAP_/, '').toLowerCase()}`)];
  const child = spawn(
    'ip',
    [
      ...['netns', 'exec', ns],
      ...['setpriv', '--bounding-set', bounding.join(','), '--no-new-privs'],
      ...['env', `PATH=${opts.path}`],
      ...[install.launcher, 'serve', '--state', state],
      ...['--data-dir', join(h.tmp, `data-${opts.tag}`), '--socket', socket],
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  children.push(child);
  let log = '';
  const outcome = await new Promise<'listening' | 'exited'>((resolve) => {
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      log += d;
      if (log.includes('"msg":"listening"')) resolve('listening');
    });
    child.once('close', () => resolve('exited'));
  });
  return { ns, socket, child, outcome, log: () => log };
}

/** A directory holding `iptables` as the legacy (x_tables) binary, and no nft. */
function legacyIptablesOnly(): string {
  const bin = join(h.tmp, 'legacy-bin');
  mkdirSync(bin, { recursive: true });
  if (!existsSync(join(bin, 'iptables'))) symlinkSync(LEGACY, join(bin, 'iptables'));
  return bin;
}

function capEff(pid: number): bigint {
  const m = /^CapEff:\s+([0-9a-f]+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return BigInt(`0x${m?.[1] ?? '0'}`);
}

describe("the unit's capability bounding set", () => {
  it('is CAP_NET_ADMIN and CAP_NET_RAW', () => {
    expect(unitCaps).toEqual(['CAP_NET_ADMIN', 'CAP_NET_RAW']);
  });

  it('is enough: bridge, nft NAT, ip_forward and a start, with only those effective', async () => {
    const d = await serve({ caps: unitCaps, path: process.env['PATH'] ?? '', tag: 'nft' });
    expect(d.outcome, d.log()).toBe('listening');
    // CAP_NET_ADMIN is bit 12, CAP_NET_RAW bit 13; the daemon is node, exec'd by the launcher.
    expect(capEff(d.child.pid!)).toBe((1n << 12n) | (1n << 13n));
    const r = await createDeviceClient({ socketPath: d.socket }).start('app');
    expect(r.lxc).toContain('lxc.net.0.link = nlcap0');
    expect(links(d.ns).map((l) => l.ifname)).toContain('nlcap0');
    expect(masqueradeRules(d.ns)).toBe(1);
    expect(run('ip', ['netns', 'exec', d.ns, 'cat', '/proc/sys/net/ipv4/ip_forward']).trim()).toBe(
      '1',
    );
  });

  it('is enough for iptables-legacy when there is no nft', async () => {
    const d = await serve({ caps: unitCaps, path: legacyIptablesOnly(), tag: 'legacy' });
    expect(d.outcome, d.log()).toBe('listening');
    expect(d.log()).toContain('NAT set up (iptables)');
    const rules = run('ip', ['netns', 'exec', d.ns, LEGACY, 'iptables', '-t', 'nat', '-S']);
    expect(rules).toContain('-A POSTROUTING -s 10.79.0.0/24 ! -o nlcap0 -j MASQUERADE');
  });

  it('needs CAP_NET_RAW for iptables-legacy: without it the NAT is refused', async () => {
    const d = await serve({ caps: ['CAP_NET_ADMIN'], path: legacyIptablesOnly(), tag: 'noraw' });
    expect(d.outcome, d.log()).toBe('listening');
    expect(d.log()).toMatch(/"level":"warning".*iptables failed for pool lan.*Permission denied/);
  });

  it('needs CAP_NET_ADMIN: without it the daemon cannot make the bridge and exits 3', async () => {
    const d = await serve({ caps: ['CAP_NET_RAW'], path: process.env['PATH'] ?? '', tag: 'noadm' });
    expect(d.outcome).toBe('exited');
    expect(d.child.exitCode).toBe(3);
    expect(d.log()).toContain('HostFailure');
  });
});
