// The client verbs as LXC hooks run them: from the start-up snapshot, against a real daemon (a
// revision without pools: no root needed, and the daemon must not touch the host network at all),
// and the bin/ launcher that picks the snapshot for client verbs and the bundle for the rest.
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppBuild } from './build-app.js';
import { buildApp } from './build-app.js';
import { linkLauncher } from './link-launcher.js';
import { netlinkSocketsOf } from './netns-harness.js';

const dir = mkdtempSync(join(tmpdir(), 'nl-client-'));
const socket = join(dir, 'api.sock');
let build: AppBuild;
let daemon: ChildProcess;
let log = '';
const logWaiters: (() => void)[] = [];

/** Resolves once the daemon's log contains `text` (checked on every chunk it writes). */
function logged(text: string): Promise<void> {
  return new Promise((resolve) => {
    const check = (): void => {
      if (log.includes(text)) resolve();
      else logWaiters.push(check);
    };
    check();
  });
}

const client = (...args: string[]) =>
  spawnSync(process.execPath, [...build.snapshotArgv, ...args, '--socket', socket], {
    encoding: 'utf8',
  });

function write(path: string, text: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
}

beforeAll(async () => {
  build = buildApp('netledger-device-client-test');
  const state = join(dir, 'state');
  write(join(state, 'device.json'), '{}');
  write(join(state, 'app', 'run.json'), '{"network":{"mode":"none"}}');
  write(join(state, 'quiet', 'run.json'), '{}');
  write(
    join(dir, 'bad', 'device.json'),
    JSON.stringify({
      network: { pools: { p: { bridge: 'pvbr0', subnet: '10.0.5.0/33', gateway: '10.0.5.1' } } },
    }),
  );
  // PATH with recording nft/iptables/ip6tables: none of them may run for a revision without pools.
  const bin = join(dir, 'bin');
  for (const tool of ['nft', 'iptables', 'ip6tables'])
    write(join(bin, tool), `#!/bin/sh\necho ${tool} "$@" >> ${join(dir, 'ran')}\n`);
  spawnSync('chmod', ['+x', ...['nft', 'iptables', 'ip6tables'].map((t) => join(bin, t))]);
  daemon = spawn(
    process.execPath,
    [build.bundle, 'serve', '--state', state, '--data-dir', join(dir, 'data'), '--socket', socket],
    { stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: `${bin}:/usr/bin:/bin` } },
  );
  daemon.stderr!.setEncoding('utf8');
  // Ready when it says it listens (its last start-up line).
  await new Promise<void>((resolve, reject) => {
    daemon.stderr!.on('data', (d: string) => {
      log += d;
      for (const w of logWaiters.splice(0)) w();
    });
    void logged('"msg":"listening"').then(resolve);
    daemon.once('exit', (code) => reject(new Error(`daemon exited ${code}: ${log}`)));
  });
});

afterAll(() => {
  daemon?.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('client verbs from the start-up snapshot', () => {
  it('start prints the (empty) LXC config of a container outside IPAM and exits 0', () => {
    const r = client('start', 'app');
    expect(r.stderr).toBe('');
    expect(r).toMatchObject({ status: 0, stdout: '' });
    expect(JSON.parse(client('start', 'app', '--output', 'json').stdout)).toEqual({
      container: 'app',
      leases: [],
      lxc: '',
    });
  });

  it('reports a refusal as one line in text, and as {"error": {code, message}} with --output json', () => {
    const text = client('start', 'ghost');
    expect(text.status).toBe(1);
    expect(text.stderr.trim().split('\n')).toEqual([
      "netledger-device: UnknownContainer: container 'ghost' is not in the applied revision",
    ]);
    const json = client('start', 'ghost', '--output', 'json');
    expect(json.status).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({
      error: {
        code: 'UnknownContainer',
        message: "container 'ghost' is not in the applied revision",
      },
    });
  });

  it('carries the offending field of a refused revision, and health shows the refusal', async () => {
    const r = client('apply', '--state', join(dir, 'bad'), '--output', 'json');
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({
      error: {
        code: 'InvalidPool',
        message: expect.stringContaining('prefix /33 of "10.0.5.0/33" is longer than the 32 bits'),
        field: 'network.pools.p.subnet',
      },
    });
    expect(JSON.parse(client('health').stdout)).toMatchObject({
      ok: true,
      refused: { code: 'InvalidPool', field: 'network.pools.p.subnet' },
    });
    expect(client('metrics').stdout).toContain('netledger_device_revision_refused 1');
    // The daemon logged it once, in the same shape (a second refusal of it adds no line).
    client('apply', '--state', join(dir, 'bad'));
    // A refused start logs a line; once it is there, anything the second apply logged is too.
    client('start', 'ghost2');
    await logged('"container":"ghost2"');
    expect(log.match(/revision refused/g)).toHaveLength(1);
    expect(log).toContain('"error":{"code":"InvalidPool"');
  });

  it('exits 3 with DaemonUnavailable when no daemon listens', () => {
    const r = spawnSync(
      process.execPath,
      [...build.snapshotArgv, 'leases', '--socket', join(dir, 'none.sock'), '--output', 'json'],
      { encoding: 'utf8' },
    );
    expect(r.status).toBe(3);
    expect(JSON.parse(r.stdout)).toMatchObject({ error: { code: 'DaemonUnavailable' } });
  });

  it('leaves the daemon and the offline verbs to the bundle', () => {
    const r = client('serve');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('the start-up snapshot serves client verbs only');
  });
});

describe('a daemon without pools or network blocks', () => {
  it('opens no netlink socket and runs no nft, iptables or ip6tables', () => {
    client('start', 'app');
    client('apply');
    expect(netlinkSocketsOf(daemon.pid!)).toEqual([]);
    expect(readdirSync(dir)).not.toContain('ran');
    expect(log).toContain('IPAM setup is a no-op');
  });
});

describe('the bin/ launcher (scripts/link-bins.mjs)', () => {
  it('runs the client verbs from the snapshot and everything else from the bundle', () => {
    const launcher = linkLauncher(build, join(dir, 'ws'));
    // `sh -x` traces the exec the launcher takes.
    const traced = (...args: string[]) =>
      spawnSync('sh', ['-x', launcher, ...args], {
        encoding: 'utf8',
        env: { PATH: process.env['PATH'] },
      });
    const start = traced('start', 'app', '--socket', socket);
    expect(start.status).toBe(0);
    expect(start.stderr).toMatch(
      /\+ exec \S+ --no-rehash-snapshot --no-sparkplug --snapshot-blob /,
    );
    const check = traced('check', '--state', join(dir, 'state'));
    expect(check.status).toBe(0);
    expect(check.stderr).not.toContain('--snapshot-blob');
    expect(JSON.parse(check.stdout)).toMatchObject({ ok: true });
  });
});
