// Debian's podman 4.3 on its CNI backend with runc, kept whole in a temporary directory: storage
// (--root, --runroot, --tmpdir), its locks (lock_type "file"), runc's state (a wrapper passing
// --root), the network config dir and the CNI bin dir. Podman runs inside a throwaway "host"
// network namespace (nsenter, so the host's mounts, cgroups included, stay visible), where the
// bridge, the veths and the masquerading rules live and die with it. The one path podman 4.3
// does not let us move is libcni's result cache (/var/lib/cni/results): podman removes each
// container's entry when it tears the network down.
import { execFileSync, spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { onPath, requireNetnsTools } from '@netledger/testkit';

/** Fails (never skips) when something the podman test needs is missing, naming the package. */
export function requirePodmanPrerequisites(): void {
  requireNetnsTools({
    ip: 'iproute2',
    nsenter: 'util-linux',
    podman: 'podman',
    iptables: 'iptables',
  });
  if (!existsSync('/usr/sbin/runc')) throw new Error('missing runc: apt-get install -y runc');
  // Debian's dynamically linked busybox also installs /bin/busybox; the rootfs has no libc.
  if (!existsSync('/var/lib/dpkg/info/busybox-static.list') || !onPath('busybox', '/bin')) {
    throw new Error('missing the static busybox: apt-get install -y busybox-static');
  }
}

/** A root file system of Debian's static busybox with its applet symlinks. */
export function makeBusyboxRootfs(dir: string): void {
  for (const d of ['bin', 'proc', 'sys', 'dev', 'etc', 'tmp', 'run', 'shared']) {
    mkdirSync(join(dir, d), { recursive: true });
  }
  copyFileSync('/bin/busybox', join(dir, 'bin', 'busybox'));
  execFileSync('chmod', ['755', join(dir, 'bin', 'busybox')]);
  const applets = execFileSync(join(dir, 'bin', 'busybox'), ['--list'], { encoding: 'utf8' });
  for (const applet of applets.split('\n')) {
    if (applet !== '' && applet !== 'busybox') symlinkSync('busybox', join(dir, 'bin', applet));
  }
}

/**
 * `--ulimit` values podman can set without CAP_SYS_RESOURCE (it would raise them otherwise, and
 * runc fail with "error setting rlimits: operation not permitted"): this process's open-files
 * limits, which podman keeps, and a process limit of at most 4096, for podman lowers its own (to
 * 32768 here), so this process's may be out of its reach.
 */
export function currentUlimits(): { nofile: string; nproc: string } {
  const limits = readFileSync('/proc/self/limits', 'utf8');
  const pair = (name: string): [string, string] => {
    const line = limits.split('\n').find((l) => l.startsWith(name)) ?? '';
    const [soft, hard] = line.slice(26).trim().split(/\s+/);
    const n = (v: string | undefined): string => (v === undefined || v === 'unlimited' ? '-1' : v);
    return [n(soft), n(hard)];
  };
  const [fileSoft, fileHard] = pair('Max open files');
  const [procSoft] = pair('Max processes');
  const nproc = procSoft === '-1' ? 4096 : Math.min(Number(procSoft), 4096);
  return { nofile: `${fileSoft}:${fileHard}`, nproc: `${nproc}:${nproc}` };
}

/**
 * Creates bridge `name` in network namespace `netns` with its MAC address pinned, as a node's
 * long-lived bridge is once the bridge plugin has set its gateway address. A bridge left without
 * ports has the all-zero MAC the kernel gives it, which Debian's bridge plugin (1.1.1, isGateway)
 * then fails to set ("could not set bridge's mac: invalid argument"): what a first ADD that failed
 * after creating the bridge leaves behind.
 */
export function addPinnedBridge(netns: string, name: string): void {
  execFileSync('ip', ['-n', netns, 'link', 'add', 'name', name, 'type', 'bridge']);
  const [link] = JSON.parse(
    execFileSync('ip', ['-n', netns, '-j', 'link', 'show', 'dev', name], { encoding: 'utf8' }),
  ) as { address: string }[];
  if (link === undefined) throw new Error(`bridge ${name} missing in ${netns}`);
  execFileSync('ip', ['-n', netns, 'link', 'set', 'dev', name, 'address', link.address]);
}

/** What a podman invocation printed and how it ended. */
export interface PodmanRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Podman with all its state under `dir`, run inside the network namespace `hostNetns`. */
export function createPodman(args: {
  readonly dir: string;
  readonly hostNetns: string;
  readonly cniBinDir: string;
  readonly networkDir: string;
}) {
  const { dir } = args;
  for (const d of ['root', 'runroot', 'tmp', 'runc']) mkdirSync(join(dir, d), { recursive: true });
  const runc = join(dir, 'runc-wrapper');
  writeFileSync(runc, `#!/bin/sh\nexec /usr/sbin/runc --root ${join(dir, 'runc')} "$@"\n`, {
    mode: 0o755,
  });
  const conf = join(dir, 'containers.conf');
  writeFileSync(
    conf,
    `[engine]
cgroup_manager = "cgroupfs"
events_logger = "none"
lock_type = "file"
runtime = "runc"

[engine.runtimes]
runc = ["${runc}"]

[network]
network_backend = "cni"
cni_plugin_dirs = ["${args.cniBinDir}", "/usr/lib/cni"]
network_config_dir = "${args.networkDir}"
`,
  );
  const base = [
    `--net=/run/netns/${args.hostNetns}`,
    'podman',
    '--root',
    join(dir, 'root'),
    '--runroot',
    join(dir, 'runroot'),
    '--tmpdir',
    join(dir, 'tmp'),
    '--storage-driver',
    'vfs',
    '--network-config-dir',
    args.networkDir,
  ];
  // CONTAINERS_CONF: podman reads this file and no system or user one.
  const env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', CONTAINERS_CONF: conf };
  return {
    /** Runs `podman <argv>` to its end. */
    run(argv: readonly string[]): Promise<PodmanRun> {
      return new Promise((resolve) => {
        const child = spawn('nsenter', [...base, ...argv], {
          env,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.on('close', (status) => resolve({ status, stdout, stderr }));
      });
    },
    /** Stops and removes every container (after a failure), tearing their networks down. */
    async removeAll(): Promise<void> {
      await this.run(['rm', '--all', '--force', '--time', '0']);
    },
  };
}
