// Throwaway container runtimes for the images' tests, all their state in a temp dir: Debian's
// containerd 1.6 (its own socket, root and state; the CRI plugin off; the native snapshotter) with
// ctr, and podman 4.3 (vfs storage, file locks, cgroupfs, no network). For tests only.
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** How a command ended and what it printed. */
export interface CommandResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function run(
  file: string,
  args: readonly string[],
  env?: NodeJS.ProcessEnv,
): Promise<CommandResult> {
  return new Promise((resolve) => {
    execFile(file, [...args], { env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const status = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
      resolve({ status, stdout, stderr: stderr || (error?.message ?? '') });
    });
  });
}

/** Fails (never skips) naming the package to install when a runtime is missing. */
export function requireRuntimes(): void {
  for (const [file, pkg] of [
    ['/usr/bin/containerd', 'containerd'],
    ['/usr/bin/ctr', 'containerd'],
    ['/usr/bin/podman', 'podman'],
    ['/usr/sbin/runc', 'runc'],
    ['/usr/bin/unshare', 'util-linux'],
  ]) {
    if (!existsSync(file!)) throw new Error(`${file} is missing: apt-get install -y ${pkg}`);
  }
}

/** A running containerd of its own and `ctr` bound to it (namespace k8s.io, as kubelet's). */
export interface Containerd {
  ctr(args: readonly string[]): Promise<CommandResult>;
  /** SIGTERMs containerd and waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * Starts containerd with everything under `dir` and resolves once it says it has booted; rejects
 * with its log if it exits first.
 */
export async function startContainerd(dir: string): Promise<Containerd> {
  mkdirSync(dir, { recursive: true });
  const socket = join(dir, 'containerd.sock');
  const config = join(dir, 'config.toml');
  writeFileSync(
    config,
    `version = 2
root = "${join(dir, 'root')}"
state = "${join(dir, 'state')}"
disabled_plugins = ["io.containerd.grpc.v1.cri"]
[grpc]
  address = "${socket}"
[ttrpc]
  address = "${socket}.ttrpc"
[debug]
  address = ""
[metrics]
  address = ""
`,
  );
  const child = spawn('/usr/bin/containerd', ['--config', config], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let log = '';
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code, signal) =>
      reject(new Error(`containerd exited (${signal ?? code}) before it booted:\n${log}`)),
    );
    createInterface({ input: child.stderr }).on('line', (line) => {
      log = `${log}${line}\n`.slice(-20_000);
      if (line.includes('containerd successfully booted')) resolve();
    });
  });
  return {
    ctr: (args) => run('/usr/bin/ctr', ['--address', socket, '--namespace', 'k8s.io', ...args]),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Podman with all its state under `dir`. */
export function createPodman(dir: string): {
  run(args: readonly string[]): Promise<CommandResult>;
} {
  for (const d of ['root', 'runroot', 'tmp']) mkdirSync(join(dir, d), { recursive: true });
  const conf = join(dir, 'containers.conf');
  writeFileSync(
    conf,
    '[engine]\ncgroup_manager = "cgroupfs"\nevents_logger = "none"\nlock_type = "file"\nruntime = "runc"\n',
  );
  const base = [
    '--root',
    join(dir, 'root'),
    '--runroot',
    join(dir, 'runroot'),
    '--tmpdir',
    join(dir, 'tmp'),
    '--storage-driver',
    'vfs',
  ];
  return {
    run: (args) =>
      run('/usr/bin/podman', [...base, ...args], {
        PATH: process.env['PATH'] ?? '/usr/bin:/bin',
        CONTAINERS_CONF: conf,
      }),
  };
}

/**
 * `--ulimit` flags podman can apply without CAP_SYS_RESOURCE: this process's open-files limits and
 * at most 4096 processes (runc fails "error setting rlimits" when podman would raise them).
 */
export function podmanUlimits(): string[] {
  const limits = readFileSync('/proc/self/limits', 'utf8').split('\n');
  const pair = (name: string): string[] =>
    (limits.find((l) => l.startsWith(name)) ?? '')
      .slice(26)
      .trim()
      .split(/\s+/)
      .slice(0, 2)
      .map((v) => (v === 'unlimited' ? '-1' : v));
  const [fileSoft, fileHard] = pair('Max open files');
  const [procSoft] = pair('Max processes');
  const nproc =
    procSoft === undefined || procSoft === '-1' ? 4096 : Math.min(Number(procSoft), 4096);
  return ['--ulimit', `nofile=${fileSoft}:${fileHard}`, '--ulimit', `nproc=${nproc}:${nproc}`];
}

/** The images' PATH (their config's Env), which the bundles' `#!/usr/bin/env node` needs. */
const IMAGE_PATH = '/usr/local/bin:/usr/bin:/bin';

/**
 * Runs `argv` in `rootfs` with chroot as `user` (`uid:gid`), in new mount and PID namespaces with
 * /proc mounted there (the static client finds itself through /proc/self/exe), with the image's
 * PATH and `env` only.
 */
export function runChrooted(
  rootfs: string,
  user: string,
  argv: readonly string[],
  env: Record<string, string> = {},
): Promise<CommandResult> {
  mkdirSync(join(rootfs, 'proc'), { recursive: true });
  return run(
    '/usr/bin/unshare',
    [
      '--mount',
      '--pid',
      '--fork',
      `--mount-proc=${join(rootfs, 'proc')}`,
      '/usr/sbin/chroot',
      `--userspec=${user}`,
      rootfs,
      ...argv,
    ],
    { PATH: IMAGE_PATH, ...env },
  );
}
