// Test harness for network-namespace tests: throwaway namespaces, the bundled daemon run inside
// one of them, and state directories. Everything it creates is removed by cleanup().
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDeviceClient } from '@netledger/device-daemon/client';
import { createNetnsPool, requireNetnsTools } from '@netledger/testkit';
import { buildApp } from './build-app.js';

/** The executable bundled for one test file (each file its own, so parallel files do not race). */
export let BUNDLE = '';
/** How the client verbs run from that build's start-up snapshot (as the launcher runs them). */
export let SNAPSHOT_ARGV: readonly string[] = [];

const TOOLS: Record<string, string> = {
  ip: 'iproute2',
  nft: 'nftables',
  iptables: 'iptables',
  ping: 'iputils-ping',
};

/** Fails (never skips) when a prerequisite is missing, saying what to install. */
export function requirePrerequisites(): void {
  requireNetnsTools(TOOLS);
}

/** Builds the app the way `pnpm build` does, under a test-specific name; sets {@link BUNDLE} and {@link SNAPSHOT_ARGV}. */
export function bundleApp(name: string): void {
  const build = buildApp(name);
  BUNDLE = build.bundle;
  SNAPSHOT_ARGV = build.snapshotArgv;
}

/** Runs a command (argument array), returning stdout; throws with stderr on failure. */
export function run(
  file: string,
  args: string[],
  opts: { input?: string; allowFail?: boolean } = {},
): string {
  try {
    return execFileSync(file, args, { encoding: 'utf8', stdio: 'pipe', input: opts.input ?? '' });
  } catch (e) {
    if (opts.allowFail === true) return '';
    const err = e as { stderr?: string; message: string };
    throw new Error(`${file} ${args.join(' ')}: ${err.stderr ?? err.message}`, { cause: e });
  }
}

/** Throwaway namespaces, temp dirs and daemons, all removed by cleanup(). */
export function createHarness() {
  const namespaces = createNetnsPool();
  const children: ChildProcess[] = [];
  const tmp = mkdtempSync(join(tmpdir(), 'nl-netns-'));
  return {
    tmp,
    netns(tag: string): string {
      return namespaces.create(`test-${tag}`);
    },
    /** Starts `netledger-device serve` inside `ns`; resolves once its API answers. */
    async daemon(args: { ns: string; state: string; data: string; path?: string }) {
      const socket = join(tmp, `api-${randomBytes(3).toString('hex')}.sock`);
      const child = spawn(
        'ip',
        [
          'netns',
          'exec',
          args.ns,
          'env',
          `PATH=${args.path ?? process.env['PATH'] ?? ''}`,
          process.execPath,
          BUNDLE,
          'serve',
          '--state',
          args.state,
          '--data-dir',
          args.data,
          '--socket',
          socket,
        ],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
      children.push(child);
      let log = '';
      child.stderr.setEncoding('utf8').on('data', (d: string) => (log += d));
      const client = createDeviceClient({ socketPath: socket });
      for (let i = 0; ; i++) {
        if (child.exitCode !== null) throw new Error(`daemon exited ${child.exitCode}: ${log}`);
        try {
          await client.health();
          break;
        } catch {
          if (i > 200) throw new Error(`daemon did not come up: ${log}`);
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      return {
        socket,
        client,
        child,
        log: () => log,
        async kill(signal: NodeJS.Signals = 'SIGTERM') {
          const exited = new Promise((r) => child.once('exit', r));
          child.kill(signal);
          await exited;
        },
      };
    },
    /**
     * Writes a state directory; returns its path. Its device.json declares `pools` (none when
     * absent); `deviceJson` writes that text instead, and `null` writes no device.json at all.
     */
    state(
      name: string,
      rev: {
        pools?: Record<string, unknown>;
        containers?: Record<string, { network?: unknown; lxc?: string }>;
        deviceJson?: string | null;
      },
    ): string {
      const dir = join(tmp, name);
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      const deviceJson =
        rev.deviceJson === undefined
          ? JSON.stringify({ network: { pools: rev.pools ?? {} } })
          : rev.deviceJson;
      if (deviceJson !== null) writeFileSync(join(dir, 'device.json'), deviceJson);
      for (const [c, spec] of Object.entries(rev.containers ?? {})) {
        mkdirSync(join(dir, c));
        writeFileSync(
          join(dir, c, 'run.json'),
          JSON.stringify(spec.network === undefined ? {} : { network: spec.network }),
        );
        if (spec.lxc !== undefined) writeFileSync(join(dir, c, 'lxc.container.conf'), spec.lxc);
      }
      return dir;
    },
    cleanup(): void {
      for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
      namespaces.cleanup();
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}

/** Reads `lxc.net.0.*` values out of the emitted LXC config text; undefined when absent. */
function lxcValueIf(lxc: string, key: string): string | undefined {
  const line = lxc.split('\n').find((l) => l.startsWith(`${key} = `));
  return line?.slice(key.length + 3);
}

/** Reads `lxc.net.0.*` values out of the emitted LXC config text. */
export function lxcValue(lxc: string, key: string): string {
  const value = lxcValueIf(lxc, key);
  if (value === undefined) throw new Error(`no ${key} in:\n${lxc}`);
  return value;
}

/** Wires a "container" namespace to a bridge in `hostNs` the way LXC would, from the emitted config. */
export function wireContainer(args: {
  hostNs: string;
  containerNs: string;
  lxc: string;
  hostVeth: string;
}): void {
  const { hostNs, containerNs: c, lxc } = args;
  const name = lxcValue(lxc, 'lxc.net.0.name');
  run('ip', [
    '-n',
    hostNs,
    'link',
    'add',
    args.hostVeth,
    'type',
    'veth',
    'peer',
    'name',
    name,
    'netns',
    c,
  ]);
  run('ip', [
    '-n',
    hostNs,
    'link',
    'set',
    args.hostVeth,
    'master',
    lxcValue(lxc, 'lxc.net.0.link'),
    'up',
  ]);
  run('ip', ['-n', c, 'link', 'set', name, 'address', lxcValue(lxc, 'lxc.net.0.hwaddr')]);
  const v4 = lxcValueIf(lxc, 'lxc.net.0.ipv4.address');
  const v6 = lxcValueIf(lxc, 'lxc.net.0.ipv6.address');
  if (v4 !== undefined) run('ip', ['-n', c, 'addr', 'add', v4, 'dev', name]);
  // nodad: usable at once, as LXC's own address is (no fixed wait for DAD in a test).
  if (v6 !== undefined) run('ip', ['-n', c, '-6', 'addr', 'add', v6, 'dev', name, 'nodad']);
  run('ip', ['-n', c, 'link', 'set', name, 'up']);
  if (v4 !== undefined)
    run('ip', ['-n', c, 'route', 'add', 'default', 'via', lxcValue(lxc, 'lxc.net.0.ipv4.gateway')]);
  if (v6 !== undefined) {
    const gw = lxcValue(lxc, 'lxc.net.0.ipv6.gateway');
    run('ip', ['-n', c, '-6', 'route', 'add', 'default', 'via', gw]);
  }
}

/** The netlink sockets (by protocol number) among a process's open descriptors, matched by inode. */
export function netlinkSocketsOf(pid: number): number[] {
  const rows = readFileSync(`/proc/${pid}/net/netlink`, 'utf8').split('\n').slice(1);
  const protocols = new Map(
    rows
      .filter((l) => l.trim() !== '')
      .map((l) => {
        const cols = l.trim().split(/\s+/);
        return [cols.at(-1) ?? '', Number(cols[1])] as const;
      }),
  );
  return readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
    let target: string;
    try {
      target = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      return []; // closed meanwhile
    }
    const m = /^socket:\[(\d+)\]$/.exec(target);
    const protocol = m === null ? undefined : protocols.get(m[1] ?? '');
    return protocol === undefined ? [] : [protocol];
  });
}

/** A link as `ip -j addr show` prints it. */
export interface AddrInfo {
  ifname: string;
  flags: string[];
  addr_info: {
    family: string;
    local: string;
    prefixlen: number;
    nodad?: boolean;
    tentative?: boolean;
  }[];
}

/** The links of a namespace with their addresses. */
export function links(ns: string): AddrInfo[] {
  return JSON.parse(run('ip', ['-n', ns, '-j', 'addr', 'show'])) as AddrInfo[];
}

/** How many masquerade rules of `family` the namespace's nftables ruleset holds. */
export function masqueradeRules(ns: string, family: 'ip' | 'ip6' = 'ip'): number {
  const out = JSON.parse(run('ip', ['netns', 'exec', ns, 'nft', '-j', 'list', 'ruleset'])) as {
    nftables: { rule?: { family: string } }[];
  };
  return out.nftables.filter(
    (o) => o.rule?.family === family && JSON.stringify(o.rule).includes('"masquerade"'),
  ).length;
}
