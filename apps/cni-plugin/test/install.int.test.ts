// `netledger-ipam install`: into a temporary CNI bin directory, then the installed plugin (the
// static client, its Node.js fallback in netledger-ipam.d/) driven from there as runtimes run it,
// on every path (its path, a symlink, a relative path, PATH, a moved directory), through a running
// agent and with it killed, and failing with CNI error JSON when its fallback cannot start.
import { spawn, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { startNodeAgent } from '@netledger/testkit';
import type { AgentStatus } from '@netledger/testkit';
import { createFileDatastore } from '@netledger/datastore-file';
import { createIpamClient, isIpamError } from '@netledger/ipam-core';
import { createTempDir } from '@netledger/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN_DIR, PLUGIN, requirePlugin } from './exec-harness.js';

let tmp: { path: string; remove: () => Promise<void> };
let binDir: string;
let dsPath: string;
let lockPath: string;
let firstInstall: ReturnType<typeof install>;

const installed = (dir = binDir): string => join(dir, 'netledger-ipam');
const lib = (dir = binDir): string => join(dir, 'netledger-ipam.d');
/** The fallback's entry. */
const bundle = (dir = binDir): string => join(lib(dir), 'netledger-ipam.mjs');
/** The build's fallback files, relative to netledger-ipam.d/ (what the install lays down). */
const builtFiles = (): string[] =>
  (readdirSync(lib(BIN_DIR), { recursive: true }) as string[])
    .filter((f) => f !== 'node' && statSync(join(lib(BIN_DIR), f)).isFile())
    .sort();

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
  it('lays down the fallback, its link to this Node.js, then the static client, with their modes', () => {
    const r = firstInstall;
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toEqual([
      ...builtFiles().map((f) => `written   ${lib()}/${f}`),
      `written   ${lib()}/node`,
      `written   ${installed()}`,
    ]);
    const mode = (p: string): number => statSync(p).mode & 0o777;
    expect(mode(installed())).toBe(0o755);
    expect(mode(lib())).toBe(0o755);
    expect(mode(bundle())).toBe(0o644);
    expect(readlinkSync(join(lib(), 'node'))).toBe(process.execPath);
    expect(readFileSync(installed()).equals(readFileSync(PLUGIN))).toBe(true);
    // The static client: an ELF executable, linked statically (no interpreter to load it).
    const elf = readFileSync(installed());
    expect(elf.subarray(0, 4).toString('latin1')).toBe('\x7fELF');
    expect(spawnSync('file', [installed()], { encoding: 'utf8' }).stdout).toMatch(
      /statically linked/,
    );
  });

  it('is idempotent: a second run changes nothing', () => {
    const before = statSync(installed(), { bigint: true }).mtimeNs;
    const r = install(['--bin-dir', binDir]);
    expect(r.status, r.stderr).toBe(0);
    expect(
      new Set(
        r.stdout
          .trim()
          .split('\n')
          .map((l) => l.split(' ')[0]),
      ),
    ).toEqual(new Set(['unchanged']));
    expect(statSync(installed(), { bigint: true }).mtimeNs).toBe(before);
  });

  it("removes an older version's chunks, and replaces a Perl client and shell launcher left by one", () => {
    const dir = join(tmp.path, 'upgrade');
    mkdirSync(join(lib(dir), 'chunks'), { recursive: true });
    writeFileSync(join(lib(dir), 'chunks', 'chunk-OLD.mjs'), '// an older chunk\n');
    writeFileSync(join(lib(dir), 'netledger-ipam.blob'), 'an older snapshot');
    writeFileSync(installed(dir), '#!/usr/bin/perl\n# an older client\n', { mode: 0o755 });
    const r = install(['--bin-dir', dir]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`removed   ${lib(dir)}/chunks/chunk-OLD.mjs\n`);
    expect(r.stdout).toContain(`removed   ${lib(dir)}/netledger-ipam.blob\n`);
    expect(r.stdout).toContain(`written   ${installed(dir)}\n`);
    expect(runCni(installed(dir), 'ADD', 'u1')).toMatchObject({ status: 0 });
    expect(runCni(installed(dir), 'DEL', 'u1')).toMatchObject({ status: 0 });
  });

  it('installs from an installed plugin too (its own client and files)', () => {
    const dir = join(tmp.path, 'second');
    const r = install(['--bin-dir', dir], installed());
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(installed(dir)).equals(readFileSync(installed()))).toBe(true);
    expect(readFileSync(bundle(dir)).equals(readFileSync(bundle()))).toBe(true);
    expect(runCni(installed(dir), 'VERSION', 'v').json).toMatchObject({ cniVersion: '1.1.0' });
  });

  it('writes the example conflist when asked, checked first', () => {
    const confDir = join(tmp.path, 'net.d');
    const bad = install(['--bin-dir', binDir, '--conf-dir', confDir, '--pool', 'fd00::/64']);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain("isn't a IPv4 address");
    expect(existsSync(join(confDir, 'netledger.conflist'))).toBe(false);
    const args = [
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
      '--agent-socket',
      '/run/x/node.sock',
    ];
    const r = install(args);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`written   ${confDir}/pods.conflist`);
    expect(JSON.parse(readFileSync(join(confDir, 'pods.conflist'), 'utf8'))).toMatchObject({
      name: 'pods',
      plugins: [
        {
          type: 'bridge',
          isGateway: true,
          ipam: {
            type: 'netledger-ipam',
            mode: 'gateway',
            datastore_path: dsPath,
            agent_socket: '/run/x/node.sock',
          },
        },
      ],
    });
    expect(statSync(join(confDir, 'pods.conflist')).mode & 0o777).toBe(0o644);
    expect(install(args).stdout).toContain(`unchanged ${confDir}/pods.conflist`);
  });

  it.each<[string[], string]>([
    [['--bin-dir'], 'argument missing'],
    [['--bin-dir='], '--bin-dir needs a value'],
    [[], '--bin-dir is required'],
    [['--bin-dir', 'a', '--bin-dir', 'b'], '--bin-dir is given twice'],
    [['--bin-dir', 'a', '--agent-client', 'perl'], "Unknown option '--agent-client'"],
    [['--bin-dir', 'a', 'extra'], "Unexpected argument 'extra'"],
    [['--bin-dir', 'a', '--network', 'a/b'], 'not a network name'],
    [['--bin-dir', 'a', '--bridge', 'a-very-long-bridge-name'], 'not an interface name'],
    [['--bin-dir', 'a', '--conf-file', '../x'], 'not a file name'],
  ])('refuses %j with the usage (2): %s', (args, msg) => {
    const r = install(args);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(msg);
    expect(r.stderr).toContain('Usage: netledger-ipam install --bin-dir DIR');
  });
});

describe('the installed plugin, driven from there', () => {
  const paths: [
    string,
    () => { file: string; args?: string[]; cwd?: string; env?: Record<string, string> },
  ][] = [
    ['by its path', () => ({ file: installed() })],
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
    [
      'with NODE_OPTIONS set',
      () => ({ file: installed(), env: { NODE_OPTIONS: '--max-old-space-size=200' } }),
    ],
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

  it('works after its directory is moved (nothing in it names its path)', () => {
    const moved = join(tmp.path, 'moved');
    cpSync(binDir, moved, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
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

describe('the installed plugin beside netledger-node, the node agent', () => {
  /** ADD requests the agent answered from the static client. */
  const adds = (s: AgentStatus): number =>
    s.requests['command="ADD",client="netledger-ipam",outcome="answered"'] ?? 0;

  it('hands ADD and DEL to the agent at agent_socket (through a symlink too), and runs them in Node.js once the agent is killed', async () => {
    const socket = join(tmp.path, 'agent.sock');
    const link = join(tmp.path, 'agent-links', 'netledger-ipam');
    mkdirSync(join(tmp.path, 'agent-links'));
    symlinkSync(installed(), link);
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
        [installed(), 'ag1'],
        [link, 'ag2'],
      ] as const) {
        const add = runCni(file, 'ADD', id, { stdin });
        expect(add.status, add.stdout + add.stderr).toBe(0);
        expect(add.json).toMatchObject({
          ips: [{ address: expect.stringMatching(/^10\.79\.0\./) }],
        });
      }
      expect(adds(await agent.status())).toBe(2);
      expect(runCni(link, 'VERSION', 'v', { stdin })).toMatchObject({
        status: 0,
        json: { cniVersion: '1.1.0' },
      });
      expect(runCni(link, 'DEL', 'ag2', { stdin })).toMatchObject({ status: 0, stdout: '' });
      expect(await held('inst.ag2')).toEqual([]);
      await agent.stop('SIGKILL'); // its socket stays: nobody listens on it
      expect(existsSync(socket)).toBe(true);
      const add = runCni(installed(), 'ADD', 'ag3', { stdin });
      expect(add.status, add.stdout + add.stderr).toBe(0);
      expect(await held('inst.ag3')).toHaveLength(1);
      for (const id of ['ag1', 'ag3']) {
        expect(runCni(installed(), 'DEL', id, { stdin })).toMatchObject({ status: 0 });
        expect(await held(`inst.${id}`)).toEqual([]);
      }
    } finally {
      await agent.stop('SIGKILL');
    }
  });
});

describe('the installed plugin when its fallback cannot start', () => {
  let n = 0;
  /** A fresh copy of the installed directory to break. */
  const copy = (): string => {
    const dir = join(tmp.path, `broken${n++}`);
    cpSync(binDir, dir, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
    return dir;
  };

  it.each<[string, (dir: string) => Record<string, string>, RegExp]>([
    [
      'a missing bundle',
      (dir) => {
        rmSync(bundle(dir));
        return {};
      },
      /^no netledger-node answers at \/run\/netledger\/node\.sock .*and no fallback is installed in /,
    ],
    [
      'NODE_OPTIONS that Node refuses',
      () => ({ NODE_OPTIONS: '--require=/nonexistent/hook.cjs' }),
      /^netledger-ipam: Node\.js \(.*\) exited with status \d+ before the plugin answered/,
    ],
  ])('prints CNI error JSON for %s, never a stack trace on stdout', (_, breakIt, msg) => {
    const broken = copy();
    const env = breakIt(broken);
    const r = runCni(installed(broken), 'ADD', 'b2', { env });
    expect(r.status).toBe(1);
    expect(r.json).toMatchObject({ msg: expect.stringMatching(msg) });
  });
});

describe('the installed plugin when the runtime kills it', () => {
  it('its fallback exits with it, assigning nothing, instead of carrying on after the runtime gave up', async () => {
    // Another process (calico-ipam) holds the host lock: the fallback waits for it after starting.
    const holder = spawn('flock', ['-o', lockPath, 'sh', '-c', 'echo held; exec sleep 600'], {
      stdio: ['ignore', 'pipe', 'ignore'],
      detached: true,
    });
    await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
    try {
      const child = spawn(installed(), [], {
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
      child.stdin.end(conf());
      // Wait for the fallback (Node.js, the client's child) to be up, and its lock helper waiting.
      const nodePid = await waitFor('the fallback to start', () => childrenOf(child.pid!)[0]);
      await waitFor('its lock helper', () => childrenOf(nodePid)[0]);
      child.kill('SIGKILL');
      await waitFor(`the fallback (pid ${nodePid}) to exit`, () =>
        alive(nodePid) ? undefined : true,
      );
    } finally {
      process.kill(-holder.pid!, 'SIGKILL');
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
