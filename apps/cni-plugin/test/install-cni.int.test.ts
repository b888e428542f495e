// `netledger-ipam install-cni` and `uninstall-cni`, as the netledger-node DaemonSet's init
// container runs them: into a CNI bin and config directory that other plugins' files share, which
// are never touched; idempotent; uninstall removes only what install-cni wrote and still is as
// written. Runs bin/netledger-ipam (pnpm build first).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTempDir } from '@netledger/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PLUGIN, requirePlugin } from './exec-harness.js';

let tmp: { path: string; remove: () => Promise<void> };
let binDir: string;
let confDir: string;

/** Other plugins' files, as a node has them: each path and its content. */
const OTHERS: Record<string, string> = {
  'bin/bridge': '#!/bin/sh\n# bridge\n',
  'bin/host-local': '#!/bin/sh\n# host-local\n',
  'bin/netledger-ipam.d/netledger-ipam.mjs': '// a dev install of the fallback\n',
  'net.d/87-podman-bridge.conflist': '{"cniVersion":"1.0.0","name":"podman","plugins":[]}\n',
  'net.d/99-loopback.conf': '{"cniVersion":"1.0.0","name":"lo","type":"loopback"}\n',
};

interface FileSnapshot {
  readonly content: string;
  readonly mtimeMs: number;
  readonly ino: number;
  readonly mode: number;
}

/** Every file under the temp dir: content, mtime, inode and mode. */
function snapshot(): Record<string, FileSnapshot> {
  const out: Record<string, FileSnapshot> = {};
  for (const rel of readdirSync(tmp.path, { recursive: true }) as string[]) {
    const path = join(tmp.path, rel);
    const st = statSync(path);
    if (!st.isFile()) continue;
    out[rel] = {
      content: readFileSync(path, 'latin1'),
      mtimeMs: st.mtimeMs,
      ino: st.ino,
      mode: st.mode & 0o7777,
    };
  }
  return out;
}

function run(verb: string, args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(PLUGIN, [verb, ...args], {
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', ...env },
    encoding: 'utf8',
  });
  const lines = r.stdout
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const [action, path] = l.split(/ +/);
      return [action, path?.slice(tmp.path.length + 1)];
    });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, lines };
}

const dirs = (): string[] => ['--bin-dir', binDir, '--conf-dir', confDir];
const install = (args: string[] = [], env: Record<string, string> = {}) =>
  run('install-cni', [...dirs(), ...args], {
    NETLEDGER_IPV4_POOLS: '10.89.0.0/24',
    NODENAME: 'worker-1',
    DATASTORE_TYPE: 'kubernetes',
    ...env,
  });
const uninstall = () => run('uninstall-cni', ['--conf-dir', confDir]);

const conflistPath = (): string => join(confDir, '10-netledger.conflist');
const recordPath = (): string => join(confDir, '.netledger-install.record');
const sha256 = (path: string): string =>
  createHash('sha256').update(readFileSync(path)).digest('hex');

beforeEach(async () => {
  requirePlugin();
  tmp = await createTempDir('netledger-install-cni-');
  binDir = join(tmp.path, 'bin');
  confDir = join(tmp.path, 'net.d');
  for (const [rel, content] of Object.entries(OTHERS)) {
    mkdirSync(join(tmp.path, rel, '..'), { recursive: true });
    writeFileSync(join(tmp.path, rel), content, { mode: 0o755 });
  }
});
afterEach(async () => {
  await tmp.remove();
});

describe('netledger-ipam install-cni', () => {
  it('puts the static client and the conflist beside other plugins, leaving theirs untouched', () => {
    const before = snapshot();
    const r = install();
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.lines).toEqual([
      ['written', 'bin/netledger-ipam'],
      ['written', 'net.d/10-netledger.conflist'],
      ['written', 'net.d/.netledger-install.record'],
    ]);
    const after = snapshot();
    for (const rel of Object.keys(OTHERS)) expect(after[rel]).toEqual(before[rel]);
    // No temporary file left, and nothing else added (no Node.js fallback on the host).
    expect(Object.keys(after).sort()).toEqual(
      [
        ...Object.keys(OTHERS),
        'bin/netledger-ipam',
        'net.d/10-netledger.conflist',
        'net.d/.netledger-install.record',
      ].sort(),
    );
    expect(after['bin/netledger-ipam']).toMatchObject({
      content: readFileSync(PLUGIN, 'latin1'),
      mode: 0o755,
    });
    expect(after['net.d/10-netledger.conflist']?.mode).toBe(0o644);
    expect(JSON.parse(readFileSync(conflistPath(), 'utf8'))).toMatchObject({
      name: 'netledger',
      plugins: [
        {
          type: 'ptp',
          ipam: {
            type: 'netledger-ipam',
            mode: 'gateway',
            ipv4_pools: ['10.89.0.0/24'],
            nodename: 'worker-1',
            datastore_type: 'kubernetes',
            agent_socket: '/run/netledger/node.sock',
          },
        },
      ],
    });
    expect(JSON.parse(readFileSync(recordPath(), 'utf8'))).toEqual({
      writer: 'netledger-ipam install-cni',
      files: [
        { path: join(binDir, 'netledger-ipam'), sha256: sha256(PLUGIN) },
        { path: conflistPath(), sha256: sha256(conflistPath()) },
      ],
    });
  });

  it('is idempotent: a second run reports every file unchanged and rewrites none', () => {
    expect(install().status).toBe(0);
    const first = snapshot();
    const r = install();
    expect(r.status).toBe(0);
    expect(r.lines.map(([action]) => action)).toEqual(['unchanged', 'unchanged', 'unchanged']);
    expect(snapshot()).toEqual(first);
  });

  it('the installed client with no agent and no fallback fails with code 11 naming the socket', () => {
    expect(install(['--agent-socket', join(tmp.path, 'none.sock')]).status).toBe(0);
    const netconf = JSON.parse(readFileSync(conflistPath(), 'utf8')) as {
      cniVersion: string;
      name: string;
      plugins: Record<string, unknown>[];
    };
    const r = spawnSync(join(binDir, 'netledger-ipam'), [], {
      env: {
        CNI_COMMAND: 'ADD',
        CNI_CONTAINERID: 'c1',
        CNI_NETNS: '/var/run/netns/c1',
        CNI_IFNAME: 'eth0',
        CNI_PATH: binDir,
      },
      input: JSON.stringify({
        cniVersion: netconf.cniVersion,
        name: netconf.name,
        ...netconf.plugins[0],
      }),
      encoding: 'utf8',
    });
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ code: 11 });
    expect(r.stdout).toContain(join(tmp.path, 'none.sock'));
  });

  it('a changed setting rewrites the conflist; a new name removes the old one, as written', () => {
    expect(install().status).toBe(0);
    const r = install(['--main-plugin', 'bridge']);
    expect(r.lines).toEqual([
      ['unchanged', 'bin/netledger-ipam'],
      ['written', 'net.d/10-netledger.conflist'],
      ['written', 'net.d/.netledger-install.record'],
    ]);
    expect(readFileSync(conflistPath(), 'utf8')).toContain('"type": "bridge"');
    const renamed = install(['--conf-name', '20-pods.conflist']);
    expect(renamed.lines).toEqual([
      ['unchanged', 'bin/netledger-ipam'],
      ['written', 'net.d/20-pods.conflist'],
      ['removed', 'net.d/10-netledger.conflist'],
      ['written', 'net.d/.netledger-install.record'],
    ]);
    expect(existsSync(conflistPath())).toBe(false);
  });

  it('refuses bad settings before writing anything, with one line naming the setting', () => {
    const before = snapshot();
    const usage = install([], { CNI_MAIN_PLUGIN: 'flannel' });
    expect(usage.status).toBe(2);
    expect(usage.stderr.split('\n')[0]).toBe(
      'netledger-ipam install-cni: CNI_MAIN_PLUGIN flannel: not a main plugin netledger-ipam install-cni configures (ptp or bridge; another: CNI_NETWORK_CONFIG)',
    );
    const pool = install([], { NETLEDGER_IPV4_POOLS: '10.89.0.0/33' });
    expect(pool.status).toBe(1);
    expect(pool.stderr).toMatch(/^netledger-ipam install-cni failed: .*10\.89\.0\.0\/33/);
    expect(pool.stderr.trim().split('\n')).toHaveLength(1);
    const store = install([], { DATASTORE_TYPE: 'consul' });
    expect(store.status).toBe(1);
    expect(store.stderr).toContain('unknown datastore type "consul"');
    expect(snapshot()).toEqual(before);
  });

  it('refuses to go on from a record it did not write, changing nothing', () => {
    writeFileSync(recordPath(), '{"files": [{"path": "/etc/passwd"}]}\n');
    const before = snapshot();
    for (const r of [install(), uninstall()]) {
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`${recordPath()} is not a netledger install record`);
    }
    expect(snapshot()).toEqual(before);
  });
});

describe('netledger-ipam uninstall-cni', () => {
  it('removes only what install-cni wrote, the conflist first, and its record', () => {
    expect(install().status).toBe(0);
    const r = uninstall();
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.lines).toEqual([
      ['removed', 'net.d/10-netledger.conflist'],
      ['removed', 'bin/netledger-ipam'],
      ['removed', 'net.d/.netledger-install.record'],
    ]);
    expect(Object.keys(snapshot()).sort()).toEqual(Object.keys(OTHERS).sort());
    for (const [rel, content] of Object.entries(OTHERS))
      expect(readFileSync(join(tmp.path, rel), 'utf8')).toBe(content);
    const again = uninstall();
    expect(again.status).toBe(0);
    expect(again.lines).toEqual([]);
    expect(again.stderr).toBe(`nothing to uninstall: no install record at ${recordPath()}\n`);
  });

  it('leaves a file someone changed since, and says so', () => {
    expect(install().status).toBe(0);
    const edited = `${readFileSync(conflistPath(), 'utf8')}\n`;
    writeFileSync(conflistPath(), edited);
    const r = uninstall();
    expect(r.status).toBe(0);
    expect(r.lines).toEqual([
      ['kept', 'net.d/10-netledger.conflist'],
      ['removed', 'bin/netledger-ipam'],
      ['removed', 'net.d/.netledger-install.record'],
    ]);
    expect(r.stderr).toMatch(
      new RegExp(
        `^kept ${conflistPath()}: changed since netledger wrote it \\(sha256 ${sha256(conflistPath())}, netledger wrote [0-9a-f]{64}\\)\n$`,
      ),
    );
    expect(readFileSync(conflistPath(), 'utf8')).toBe(edited);
  });
});
