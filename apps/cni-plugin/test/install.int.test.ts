// `netledger-ipam install`: into a temporary CNI bin directory, then the installed plugin driven
// from there as runtimes run it, on every path (snapshot, bundle under NODE_OPTIONS, a symlink, a
// relative path, PATH, a moved directory), and failing with CNI error JSON when it cannot start.
// With a Perl (this machine's /usr/bin/perl) the executable is the node agent's Perl client and
// the shell launcher lives in netledger-ipam.d/; through a running agent, and with it stopped.
import { spawn, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { acquireHostLock, silentLogger } from '@netledger/cni';
import { startNodeAgent } from '@netledger/testkit';
import type { AgentStatus } from '@netledger/testkit';
import { createFileDatastore } from '@netledger/datastore-file';
import { createIpamClient, isIpamError } from '@netledger/ipam-core';
import { createTempDir } from '@netledger/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN_DIR, PLUGIN, SNAPSHOT_FLAGS, requirePlugin } from './exec-harness.js';

let tmp: { path: string; remove: () => Promise<void> };
let binDir: string;
let dsPath: string;
let lockPath: string;
let firstInstall: ReturnType<typeof install>;

const installed = (dir = binDir): string => join(dir, 'netledger-ipam');
const lib = (dir = binDir): string => join(dir, 'netledger-ipam.d');
/** The shell launcher, which the Perl executable runs (Node's way in). */
const launcher = (dir = binDir): string => join(lib(dir), 'netledger-ipam');

function install(args: string[], installer = PLUGIN) {
  return spawnSync(installer, ['install', ...args], {
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' },
    encoding: 'utf8',
  });
}

const conf = (): string =>
  JSON.stringify({
    cniVersion: '1.1.0',
    name: 'inst',
    ipam: {
      type: 'netledger-ipam',
      nodename: 'inst-node',
      datastore_path: dsPath,
      ipam_lock_file: lockPath,
      log_level: 'error',
    },
  });

interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly json: Record<string, unknown> | undefined;
}

function runCni(
  file: string,
  command: string,
  id: string,
  opts: { env?: Record<string, string>; args?: string[]; cwd?: string; stdin?: string } = {},
): Run {
  const r = spawnSync(file, opts.args ?? [], {
    cwd: opts.cwd ?? '/',
    env: {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      CNI_COMMAND: command,
      CNI_CONTAINERID: id,
      CNI_NETNS: `/var/run/netns/${id}`,
      CNI_IFNAME: 'eth0',
      CNI_PATH: binDir,
      ...opts.env,
    },
    input: opts.stdin ?? conf(),
    encoding: 'utf8',
  });
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(r.stdout) as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, json };
}

async function held(handle: string): Promise<string[]> {
  const ds = await createFileDatastore({ path: dsPath });
  try {
    return await createIpamClient({ datastore: ds })
      .ipsByHandle(handle)
      .catch((e: unknown) => {
        if (isIpamError(e, 'DoesNotExist')) return [];
        throw e;
      });
  } finally {
    await ds.close();
  }
}

beforeAll(async () => {
  requirePlugin();
  tmp = await createTempDir('netledger-install-');
  binDir = join(tmp.path, 'opt', 'cni', 'bin');
  dsPath = join(tmp.path, 'store', 'datastore.json');
  lockPath = join(tmp.path, 'ipam.lock');
  const ds = await createFileDatastore({ path: dsPath });
  await createIpamClient({ datastore: ds }).pools.create({
    metadata: { name: 'inst' },
    spec: { cidr: '10.79.0.0/24' },
  });
  await ds.close();
  firstInstall = install(['--bin-dir', binDir]);
}, 60_000);

afterAll(async () => {
  await tmp?.remove();
});

describe('netledger-ipam install', () => {
  it('lays down the launcher and netledger-ipam.d/ with their modes, the blob stamped for this Node', () => {
    const r = firstInstall;
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toEqual([
      `written   ${lib()}/netledger-ipam.mjs`,
      `written   ${lib()}/netledger-ipam.snapshot.cjs`,
      `written   ${lib()}/netledger-ipam.blob`,
      `written   ${lib()}/netledger-ipam-agent.pl`,
      `written   ${lib()}/netledger-ipam`,
      `written   ${installed()}`,
      'node agent client: /usr/bin/perl (while /run/netledger/node.sock exists)',
    ]);
    const mode = (p: string): number => statSync(p).mode & 0o777;
    expect(mode(installed())).toBe(0o755);
    expect(mode(lib())).toBe(0o755);
    expect(mode(join(lib(), 'netledger-ipam.mjs'))).toBe(0o644);
    expect(mode(join(lib(), 'netledger-ipam.snapshot.cjs'))).toBe(0o644);
    expect(mode(join(lib(), 'netledger-ipam.blob'))).toBe(0o600);
    expect(mode(join(lib(), 'netledger-ipam-agent.pl'))).toBe(0o644);
    expect(mode(launcher())).toBe(0o755);
    const blob = statSync(join(lib(), 'netledger-ipam.blob'), { bigint: true });
    expect(blob.mtimeNs).toBe(statSync(process.execPath, { bigint: true }).mtimeNs);
    expect(readFileSync(installed(), 'utf8')).toMatch(/^#!\/usr\/bin\/perl\n/);
    expect(readFileSync(launcher(), 'utf8')).toContain(`n=${process.execPath}\n`);
  });

  it('is idempotent: a second run changes nothing', () => {
    const before = statSync(installed(), { bigint: true }).mtimeNs;
    const r = install(['--bin-dir', binDir]);
    expect(r.status, r.stderr).toBe(0);
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => l.split(' ')[0]),
    ).toEqual([
      'unchanged',
      'unchanged',
      'unchanged',
      'unchanged',
      'unchanged',
      'unchanged',
      'node',
    ]);
    expect(statSync(installed(), { bigint: true }).mtimeNs).toBe(before);
  });

  it('the agent client: by default the executable itself (Perl, no module); --agent-client node leaves it to the plugin', () => {
    const executable = readFileSync(installed(), 'utf8');
    expect(executable).toContain("my $probe = '/run/netledger/node.sock';\n");
    expect(executable).toContain("my $launcher = 'netledger-ipam.d/netledger-ipam';\n");
    expect(executable).not.toMatch(/^\s*(use|require)\s/m);
    const dir = join(tmp.path, 'node-client');
    const r = install(['--bin-dir', dir, '--agent-client', 'node', '--agent-socket', '/x/a.sock']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('node agent client: the plugin itself (Node)\n');
    const sh = readFileSync(join(dir, 'netledger-ipam'), 'utf8');
    expect(sh).toMatch(/^#!\/bin\/sh\n/);
    expect(sh).not.toContain('perl');
    expect(sh).toContain("import './netledger-ipam.d/netledger-ipam.mjs';");
    expect(runCni(join(dir, 'netledger-ipam'), 'VERSION', 'v').json).toMatchObject({
      cniVersion: '1.1.0',
    });
    const bad = install(['--bin-dir', dir, '--agent-client', 'python']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--agent-client python: perl or node');
  });

  it('writes the example conflist when asked, checked first', () => {
    const confDir = join(tmp.path, 'net.d');
    const bad = install(['--bin-dir', binDir, '--conf-dir', confDir, '--pool', 'fd00::/64']);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain("isn't a IPv4 address");
    expect(existsSync(join(confDir, 'netledger.conflist'))).toBe(false);
    const r = install([
      '--bin-dir',
      binDir,
      '--conf-dir',
      confDir,
      '--network',
      'pods',
      '--pool',
      '10.79.0.0/24',
      '--datastore-path',
      dsPath,
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`written   ${confDir}/pods.conflist`);
    expect(JSON.parse(readFileSync(join(confDir, 'pods.conflist'), 'utf8'))).toMatchObject({
      name: 'pods',
      plugins: [
        {
          type: 'bridge',
          isGateway: true,
          ipam: { type: 'netledger-ipam', mode: 'gateway', datastore_path: dsPath },
        },
      ],
    });
    expect(statSync(join(confDir, 'pods.conflist')).mode & 0o777).toBe(0o644);
    expect(
      install([
        '--bin-dir',
        binDir,
        '--conf-dir',
        confDir,
        '--network',
        'pods',
        '--pool',
        '10.79.0.0/24',
        '--datastore-path',
        dsPath,
      ]).stdout,
    ).toContain(`unchanged ${confDir}/pods.conflist`);
  });

  it('refuses bad arguments with the usage (2)', () => {
    const r = install(['--bin-dir']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--bin-dir needs a value');
    expect(r.stderr).toContain('Usage: netledger-ipam install --bin-dir DIR');
  });
});

describe('the installed plugin, driven from there', () => {
  const paths: [
    string,
    () => { file: string; args?: string[]; cwd?: string; env?: Record<string, string> },
  ][] = [
    ['by its path (the snapshot)', () => ({ file: installed() })],
    [
      'with NODE_OPTIONS set (the bundle)',
      () => ({ file: installed(), env: { NODE_OPTIONS: '--max-old-space-size=200' } }),
    ],
    [
      'by a relative path from another directory',
      () => ({ file: './bin/netledger-ipam', cwd: join(tmp.path, 'opt', 'cni') }),
    ],
    [
      'through a symlink elsewhere',
      () => {
        const link = join(tmp.path, 'links', 'netledger-ipam');
        if (!existsSync(link)) {
          mkdirSync(join(tmp.path, 'links'), { recursive: true });
          symlinkSync(installed(), link);
        }
        return { file: link };
      },
    ],
    [
      'found on PATH',
      () => ({
        file: 'netledger-ipam',
        env: { PATH: `${binDir}:${process.env['PATH'] ?? '/usr/bin:/bin'}` },
      }),
    ],
    ['as node <launcher>', () => ({ file: process.execPath, args: [launcher()] })],
  ];

  it.each(paths)('ADD, a repeated ADD, CHECK and DEL work %s', async (_, how) => {
    const { file, args, cwd, env } = how();
    const id = `p${paths.findIndex(([n]) => n === _)}`;
    const opts = { ...(args && { args }), ...(cwd && { cwd }), ...(env && { env }) };
    const add = runCni(file, 'ADD', id, opts);
    expect(add.status, add.stdout + add.stderr).toBe(0);
    expect(add.json).toMatchObject({
      ips: [{ address: expect.stringMatching(/^10\.79\.0\.\d+\/26$/) }],
    });
    expect(runCni(file, 'ADD', id, opts).stdout).toBe(add.stdout);
    expect(
      runCni(file, 'CHECK', id, {
        ...opts,
        stdin: JSON.stringify({ ...JSON.parse(conf()), prevResult: add.json }),
      }),
    ).toMatchObject({ status: 0, stdout: '' });
    expect(runCni(file, 'DEL', id, opts)).toMatchObject({ status: 0, stdout: '' });
    expect(await held(`inst.${id}`)).toEqual([]);
  });

  it('starts from the snapshot by its path, from the bundle under NODE_OPTIONS', () => {
    const trace = (env: Record<string, string>) =>
      spawnSync('/bin/sh', ['-x', launcher()], {
        env: { PATH: '/usr/bin:/bin', CNI_COMMAND: 'VERSION', ...env },
        input: '',
        encoding: 'utf8',
      })
        .stderr.split('\n')
        .filter((l) => l.startsWith(`+ ${process.execPath} `));
    expect(trace({})).toEqual([
      `+ ${process.execPath} ${SNAPSHOT_FLAGS.join(' ')} --snapshot-blob ${lib()}/netledger-ipam.blob ${launcher()}`,
    ]);
    expect(trace({ NODE_OPTIONS: '--max-old-space-size=200' })).toEqual([
      `+ ${process.execPath} ${lib()}/netledger-ipam.mjs`,
    ]);
  });

  it('works after its directory is moved (nothing in it names its path)', () => {
    const moved = join(tmp.path, 'moved');
    cpSync(binDir, moved, { recursive: true, preserveTimestamps: true });
    expect(runCni(installed(moved), 'VERSION', 'v')).toMatchObject({
      status: 0,
      json: { cniVersion: '1.1.0' },
    });
    const r = runCni(installed(moved), 'ADD', 'mv1');
    expect(r.status, r.stdout).toBe(0);
    expect(runCni(installed(moved), 'DEL', 'mv1').status).toBe(0);
    rmSync(moved, { recursive: true });
  });

  it('reports a CNI error with exit status 1, as any plugin', () => {
    expect(runCni(installed(), 'ADD', 'e1', { stdin: '{"cniVersion": "1.1.0"}' })).toMatchObject({
      status: 1,
      json: { code: 7, msg: 'missing network name' },
    });
  });
});

describe('installing over an older layout, and switching the agent client', () => {
  it('replaces a shell-launcher executable with the Perl one (launcher first), and back', () => {
    const dir = join(tmp.path, 'upgrade');
    // An older install: the executable is the shell launcher, nothing else runs in the directory.
    expect(install(['--bin-dir', dir, '--agent-client', 'node']).status).toBe(0);
    rmSync(launcher(dir));
    expect(runCni(installed(dir), 'ADD', 'u1')).toMatchObject({ status: 0 });
    const r = install(['--bin-dir', dir]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n').slice(-3)).toEqual([
      `written   ${launcher(dir)}`,
      `written   ${installed(dir)}`,
      'node agent client: /usr/bin/perl (while /run/netledger/node.sock exists)',
    ]);
    expect(readFileSync(installed(dir), 'utf8')).toMatch(/^#!\/usr\/bin\/perl\n/);
    expect(runCni(installed(dir), 'ADD', 'u1')).toMatchObject({ status: 0 });
    expect(runCni(installed(dir), 'DEL', 'u1')).toMatchObject({ status: 0 });
    const back = install(['--bin-dir', dir, '--agent-client', 'node']);
    expect(back.stdout).toContain(`unchanged ${launcher(dir)}\nwritten   ${installed(dir)}\n`);
    expect(readFileSync(installed(dir), 'utf8')).toMatch(/^#!\/bin\/sh\n/);
    expect(runCni(installed(dir), 'VERSION', 'v')).toMatchObject({ status: 0 });
  });
});

describe('the installed plugin beside netledger-node, the node agent', () => {
  /** ADD requests the agent answered from the Perl client. */
  const perlAdds = (s: AgentStatus): number =>
    s.requests['command="ADD",client="netledger-ipam-perl",outcome="answered"'] ?? 0;

  it('hands ADD and DEL to the agent from the Perl executable (a symlink too), and runs them in Node once the agent is killed', async () => {
    const dir = join(tmp.path, 'agent-bin');
    const socket = join(tmp.path, 'agent.sock');
    const r = install(['--bin-dir', dir, '--agent-socket', socket]);
    expect(r.stdout).toContain(`node agent client: /usr/bin/perl (while ${socket} exists)`);
    const link = join(tmp.path, 'agent-links', 'netledger-ipam');
    mkdirSync(join(tmp.path, 'agent-links'));
    symlinkSync(installed(dir), link);
    const base = JSON.parse(conf()) as { ipam: Record<string, unknown> };
    const stdin = JSON.stringify({ ...base, ipam: { ...base.ipam, agent_socket: socket } });
    const agent = await startNodeAgent({
      bin: join(BIN_DIR, 'netledger-node'),
      nodename: 'inst-node',
      socket,
      env: { NETLEDGER_DATASTORE_PATH: dsPath },
    });
    try {
      for (const [file, id] of [
        [installed(dir), 'ag1'],
        [link, 'ag2'],
      ] as const) {
        const add = runCni(file, 'ADD', id, { stdin });
        expect(add.status, add.stdout + add.stderr).toBe(0);
        expect(add.json).toMatchObject({
          ips: [{ address: expect.stringMatching(/^10\.79\.0\./) }],
        });
      }
      expect(perlAdds(await agent.status())).toBe(2);
      expect(runCni(link, 'VERSION', 'v', { stdin })).toMatchObject({
        status: 0,
        json: { cniVersion: '1.1.0' },
      });
      expect(runCni(link, 'DEL', 'ag2', { stdin })).toMatchObject({ status: 0, stdout: '' });
      expect(await held('inst.ag2')).toEqual([]);
      await agent.stop('SIGKILL'); // its socket stays: nobody listens on it
      expect(existsSync(socket)).toBe(true);
      const add = runCni(installed(dir), 'ADD', 'ag3', { stdin });
      expect(add.status, add.stdout + add.stderr).toBe(0);
      expect(await held('inst.ag3')).toHaveLength(1);
      for (const id of ['ag1', 'ag3']) {
        expect(runCni(installed(dir), 'DEL', id, { stdin })).toMatchObject({ status: 0 });
        expect(await held(`inst.${id}`)).toEqual([]);
      }
    } finally {
      await agent.stop('SIGKILL');
    }
  });
});

describe('the installed plugin when it cannot start as installed', () => {
  let n = 0;
  /** A fresh copy of the installed directory to break. */
  const copy = (): string => {
    const dir = join(tmp.path, `broken${n++}`);
    cpSync(binDir, dir, { recursive: true, preserveTimestamps: true });
    return dir;
  };

  it('answers from the bundle when the blob does not load (damaged, its mtime kept)', () => {
    const broken = copy();
    const blob = join(lib(broken), 'netledger-ipam.blob');
    writeFileSync(blob, 'not a snapshot');
    spawnSync('touch', ['-r', process.execPath, blob]);
    const r = runCni(installed(broken), 'ADD', 'b1');
    expect(r.status, r.stdout).toBe(0);
    expect(r.json).toMatchObject({ ips: [{ address: expect.stringMatching(/^10\.79\.0\./) }] });
    expect(runCni(installed(broken), 'DEL', 'b1').status).toBe(0);
  });

  it.each<[string, Record<string, string>, RegExp]>([
    [
      'a missing bundle (NODE_OPTIONS set)',
      { NODE_OPTIONS: '--max-old-space-size=200' },
      /netledger-ipam\.mjs is missing or unreadable: run netledger-ipam install again$/,
    ],
    [
      'NODE_OPTIONS that Node refuses',
      { NODE_OPTIONS: '--require=/nonexistent/hook.cjs' },
      /^netledger-ipam: Node\.js exited with status \d+ before the plugin answered/,
    ],
  ])('prints CNI error JSON for %s, never a stack trace on stdout', (_, env, msg) => {
    const broken = copy();
    if (env['NODE_OPTIONS']?.startsWith('--max')) rmSync(join(lib(broken), 'netledger-ipam.mjs'));
    const r = runCni(installed(broken), 'ADD', 'b2', { env });
    expect(r.status).toBe(1);
    expect(r.json).toEqual({ code: 999, msg: expect.stringMatching(msg) });
  });

  it('prints CNI error JSON for a missing launcher in netledger-ipam.d/', () => {
    const broken = copy();
    rmSync(launcher(broken));
    const r = runCni(installed(broken), 'ADD', 'b3');
    expect(r).toMatchObject({ status: 1, stderr: '' });
    expect(r.json).toEqual({
      code: 999,
      msg: `netledger-ipam: ${launcher(broken)} is missing or unreadable: run netledger-ipam install again`,
    });
  });
});

describe('the installed plugin when the runtime kills it', () => {
  it('exits with its launcher, assigning nothing, instead of carrying on after the runtime gave up', async () => {
    // Hold the host lock, so the plugin waits for it after starting.
    const lock = await acquireHostLock({ path: lockPath, timeoutMs: 5000, log: silentLogger });
    let child: ReturnType<typeof spawn> | undefined;
    try {
      child = spawn(installed(), [], {
        env: {
          PATH: process.env['PATH'] ?? '/usr/bin:/bin',
          CNI_COMMAND: 'ADD',
          CNI_CONTAINERID: 'k1',
          CNI_NETNS: '/var/run/netns/k1',
          CNI_IFNAME: 'eth0',
          CNI_PATH: binDir,
        },
        stdio: ['pipe', 'ignore', 'ignore'],
      });
      child.stdin!.end(conf());
      const launcherPid = child.pid!;
      // Wait for the plugin (Node, the launcher's child) to be up and waiting.
      const nodePid = await waitFor('the plugin to start', () => childrenOf(launcherPid)[0]);
      child.kill('SIGKILL');
      await waitFor(`the plugin (pid ${nodePid}) to exit`, () =>
        alive(nodePid) ? undefined : true,
      );
    } finally {
      await lock?.release();
    }
    expect(await held('inst.k1')).toEqual([]);
  }, 30_000);
});

/** The pids whose parent is `pid`, from /proc. */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        // pid (comm) state ppid ...: comm may hold spaces, so split after its closing parenthesis.
        const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
  } catch {
    return false;
  }
}

/** Polls `probe` until it gives a value (the event), failing after 20 s. */
async function waitFor<T>(what: string, probe: () => T | undefined): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
