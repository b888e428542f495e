// The init script (packaging/netledger-device.init) run for real, under BusyBox's sh and under dash,
// on the install packaging/stage.mjs lays down in a temp dir, with the daemon in a throwaway netns:
// start -> its API answers (a container's start, a bridge and NAT) -> status -> stop -> gone.
// Needs root, iproute2, nftables and busybox (busybox-static).
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { onPath } from '@netledger/testkit';
import { buildApp } from './build-app.js';
import {
  createHarness,
  links,
  lxcValue,
  masqueradeRules,
  requirePrerequisites,
} from './netns-harness.js';
import type { StagedInstall } from './stage-install.js';
import { stageInstall } from './stage-install.js';

const BUILD = 'init-script-test';
const SHELLS = { busybox: ['busybox', 'sh'], dash: ['dash'] } as const;
type Shell = keyof typeof SHELLS;

/** Whether `pid` has exited: no such process, or a zombie its reaper has not collected yet. */
function exited(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

let h: ReturnType<typeof createHarness>;
let install: StagedInstall;
let ns: string;
let files: { socket: string; pidfile: string; log: string; data: string };

beforeAll(() => {
  requirePrerequisites();
  for (const [tool, pkg] of [
    ['busybox', 'busybox-static'],
    ['dash', 'dash'],
  ]) {
    if (!onPath(tool!)) throw new Error(`missing ${tool}: apt-get install -y ${pkg}`);
  }
  buildApp(BUILD);
});

beforeEach(() => {
  h = createHarness();
  install = stageInstall({ build: BUILD, dir: join(h.tmp, 'root') });
  ns = h.netns('init');
  const state = h.state('state', {
    pools: {
      lan: { bridge: 'nlinit0', subnet: '10.78.0.0/24', gateway: '10.78.0.1', nat: true },
    },
    containers: { app: { network: { pool: 'lan' } } },
  });
  files = {
    socket: join(h.tmp, 'run', 'device.sock'),
    pidfile: join(h.tmp, 'run', 'netledger-device.pid'),
    log: join(h.tmp, 'log', 'netledger-device.log'),
    data: join(h.tmp, 'data'),
  };
  // What a device builder writes into /etc/default/netledger-device, pointed into the temp dir.
  appendFileSync(
    install.defaults,
    [
      `NETLEDGER_DEVICE_OPTS="--state ${state}"`,
      `NETLEDGER_DEVICE_DATA_DIR="${files.data}"`,
      `NETLEDGER_DEVICE_SOCKET="${files.socket}"`,
      `NETLEDGER_DEVICE_PIDFILE="${files.pidfile}"`,
      `NETLEDGER_DEVICE_LOG="${files.log}"`,
      'NETLEDGER_DEVICE_TIMEOUT="20"',
      '',
    ].join('\n'),
  );
});

afterEach(() => {
  // A daemon a failed test left running: its pid is in the pidfile.
  if (existsSync(files.pidfile)) {
    const pid = Number(readFileSync(files.pidfile, 'utf8'));
    if (pid > 0 && !exited(pid)) process.kill(pid, 'SIGKILL');
  }
  h.cleanup();
});

/** Runs `<shell> <init script> <verb>` in the netns, as init would. */
function init(verb: string, shell: Shell = 'busybox') {
  const [file, ...args] = SHELLS[shell];
  const r = spawnSync('ip', ['netns', 'exec', ns, file, ...args, install.initScript, verb], {
    encoding: 'utf8',
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Runs a client verb through the staged launcher (from the client snapshot). */
function client(...args: string[]): string {
  const r = spawnSync(install.launcher, [...args, '--socket', files.socket], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`netledger-device ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

function pidfilePid(): number {
  return Number(readFileSync(files.pidfile, 'utf8').trim());
}

describe('init script', () => {
  it.each(Object.keys(SHELLS) as Shell[])(
    'under %s: start, the API answers, status, stop, the process is gone',
    (shell) => {
      const started = init('start', shell);
      expect(started).toMatchObject({ status: 0, stderr: '' });
      const pid = pidfilePid();
      expect(started.stdout).toBe(`netledger-device started (pid ${pid})\n`);

      // The daemon applied the revision in the netns with the staged netlink addon, and serves.
      const lxc = client('start', 'app');
      expect(lxcValue(lxc, 'lxc.net.0.link')).toBe('nlinit0');
      expect(lxcValue(lxc, 'lxc.net.0.ipv4.address')).toBe('10.78.0.2/24');
      expect(links(ns).map((l) => l.ifname)).toContain('nlinit0');
      expect(masqueradeRules(ns)).toBe(1);
      expect(readFileSync(`/proc/${pid}/maps`, 'utf8')).toContain(install.addon);

      expect(init('status', shell)).toMatchObject({
        status: 0,
        stdout: `netledger-device is running (pid ${pid})\n`,
      });
      expect(init('start', shell)).toMatchObject({
        status: 0,
        stdout: `netledger-device is already running (pid ${pid})\n`,
      });
      expect(pidfilePid()).toBe(pid);

      expect(init('stop', shell)).toMatchObject({
        status: 0,
        stdout: 'netledger-device stopped\n',
      });
      expect(exited(pid)).toBe(true);
      expect(existsSync(files.pidfile)).toBe(false);
      // SIGTERM: it closed its API and said so.
      expect(readFileSync(files.log, 'utf8').trim().split('\n').at(-1)).toContain(
        '"msg":"stopped"',
      );
      expect(init('status', shell)).toMatchObject({
        status: 3,
        stdout: 'netledger-device is not running\n',
      });
      expect(init('stop', shell)).toMatchObject({
        status: 0,
        stdout: 'netledger-device is not running\n',
      });
    },
  );

  it('restart: a new process, the same lease', () => {
    expect(init('start').status).toBe(0);
    const first = pidfilePid();
    const address = lxcValue(client('start', 'app'), 'lxc.net.0.ipv4.address');

    const restarted = init('restart');
    expect(restarted).toMatchObject({ status: 0, stderr: '' });
    const second = pidfilePid();
    expect(second).not.toBe(first);
    expect(exited(first)).toBe(true);
    expect(restarted.stdout).toBe(
      `netledger-device stopped\nnetledger-device started (pid ${second})\n`,
    );
    expect(lxcValue(client('start', 'app'), 'lxc.net.0.ipv4.address')).toBe(address);
    expect(init('stop').status).toBe(0);
  });

  it('a daemon that exits at start: start fails with the end of its log, no pidfile', () => {
    mkdirSync(files.data, { mode: 0o700 });
    writeFileSync(join(files.data, 'leases.json'), '{');
    const r = init('start');
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      `netledger-device: exited at start; the end of ${files.log}:\n` +
        'netledger-device: LeaseStoreCorrupt: lease file: not valid JSON\n',
    );
    expect(existsSync(files.pidfile)).toBe(false);
    expect(init('status').status).toBe(3);
  });

  it('a pidfile naming another live process is stale: status 1, start replaces it', () => {
    // This test's own process is alive and is not the daemon.
    mkdirSync(dirname(files.pidfile), { recursive: true });
    writeFileSync(files.pidfile, `${process.pid}\n`);
    expect(init('status')).toMatchObject({
      status: 1,
      stdout: `netledger-device is not running, but ${files.pidfile} remains\n`,
    });
    expect(init('start').status).toBe(0);
    expect(pidfilePid()).not.toBe(process.pid);
    expect(client('health')).toContain('"ok": true');
    expect(init('stop').status).toBe(0);
  });

  it('an unknown verb: usage on stderr, exit 2', () => {
    expect(init('reload')).toMatchObject({
      status: 2,
      stdout: '',
      stderr: `usage: ${install.initScript} {start|stop|restart|status}\n`,
    });
  });
});
