import { existsSync } from 'node:fs';
import { readdir, readFile, readlink, rm, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { removeCgroupTrees } from './cgroup-tree.js';
import type { ClusterLayout } from './cluster-layout.js';
import type { ClusterState, ProcessRecord } from './cluster-state.js';
import { taskIds } from './containerd-runtime.js';
import { stopRecorded } from './daemon-process.js';
import { HOST_PROGRAMS } from './host-prerequisites.js';
import { restoreSysctls } from './host-sysctls.js';
import { mountsUnder, parseMountinfo } from './mount-table.js';
import { isSameLiveProcess, processesMentioning } from './proc-table.js';
import { runCommand } from './run-command.js';
import { sandboxRemovalOrder } from './sandbox-removal-order.js';
import type { SandboxInspection } from './sandbox-removal-order.js';
import { shimSocketPath } from './shim-sockets.js';

/** Options for {@link tearDown}. */
export interface TearDownOptions {
  readonly layout: ClusterLayout;
  readonly state: ClusterState;
  readonly log: (line: string) => void;
  /** crictl, to remove the pods through the CRI (CNI DEL included) while containerd runs. */
  readonly crictl: string | undefined;
}

const STOP_GRACE_MS = 10_000;

const byName = (state: ClusterState, name: string): ProcessRecord | undefined =>
  state.processes.find((p) => p.name === name);

/**
 * Removes every pod sandbox through containerd's CRI, as kubelet would: each stopped (its
 * containers killed, the CNI DEL run, so host-local or netledger releases its address) and
 * removed (its network namespace and mounts with it); those with a pod network first, those on
 * the host's network (netledger's agent, which serves the DEL) last ({@link sandboxRemovalOrder}).
 */
async function removePods(o: TearDownOptions): Promise<void> {
  const containerd = byName(o.state, 'containerd');
  if (!o.crictl || !containerd || !isSameLiveProcess(containerd.pid, containerd.startTime)) return;
  const crictl = (args: readonly string[]) =>
    runCommand(o.crictl!, ['--config', o.layout.containerd.crictlConfig, ...args], {
      timeoutMs: 120_000,
    });
  const listed = await crictl(['pods', '-q']);
  const ids = listed.stdout.split('\n').filter((id) => id !== '');
  const inspected = ids.length > 0 ? await crictl(['inspectp', '-o', 'json', ...ids]) : undefined;
  let groups: string[][];
  try {
    if (listed.status !== 0) throw new Error(listed.stderr);
    const order = sandboxRemovalOrder(JSON.parse(inspected?.stdout ?? '[]') as SandboxInspection);
    groups = [order.podNetwork, order.hostNetwork];
  } catch {
    groups = [['--all']]; // not listed or not inspectable: all at once, in crictl's order
  }
  for (const group of groups.filter((g) => g.length > 0)) {
    const r = await crictl(['rmp', '--force', ...group]);
    if (r.status !== 0) o.log(`crictl rmp --force (exit ${r.status}): ${r.stderr.trim()}`);
  }
}

/** SIGKILLs what is left that names DIR (a shim, etcd), and waits for it to go. */
async function killStragglers(dir: string, log: (line: string) => void): Promise<string[]> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const left = processesMentioning(`${dir}/`);
    if (left.length === 0) return [];
    if (attempt === 0) {
      log(`killing ${left.map((p) => `${p.pid} (${p.argv[0] ?? '?'})`).join(', ')}`);
    }
    for (const p of left) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
    await sleep(100);
  }
  return processesMentioning(`${dir}/`).map((p) => `process ${p.pid}: ${p.argv.join(' ')}`);
}

/** Unmounts everything at or under `dir` (lazily when busy); returns the mounts left. */
async function unmountUnder(dir: string, log: (line: string) => void): Promise<string[]> {
  const mounted = async (): Promise<string[]> =>
    mountsUnder(parseMountinfo(await readFile('/proc/self/mountinfo', 'utf8')), dir);
  for (let round = 0; round < 3; round++) {
    const mounts = await mounted();
    if (mounts.length === 0) return [];
    for (const m of mounts) {
      const r = await runCommand(HOST_PROGRAMS.umount.path, [m]);
      if (r.status === 0) continue;
      const lazy = await runCommand(HOST_PROGRAMS.umount.path, ['--lazy', m]);
      if (lazy.status !== 0) log(`umount ${m}: ${r.stderr.trim()} ${lazy.stderr.trim()}`);
    }
  }
  return (await mounted()).map((m) => `mount ${m}`);
}

/** Removes the /var/log/containers links kubelet made to DIR's pod logs. */
async function removeLogLinks(dir: string): Promise<void> {
  const links = '/var/log/containers';
  for (const name of await readdir(links).catch(() => [])) {
    const target = await readlink(join(links, name)).catch(() => '');
    if (target.startsWith(`${dir}/`)) await rm(join(links, name), { force: true });
  }
}

/**
 * Undoes a cluster: kubelet stopped first (so it starts nothing again), the pods removed
 * through the CRI, then the other daemons stopped in reverse start order, anything still naming
 * DIR killed, the pods' cgroups removed, everything mounted under DIR unmounted, the host's
 * sysctls restored, kubelet's log links and leftover shim sockets removed, the directories
 * outside DIR that the cluster made removed when empty, and DIR removed. Carries on past each
 * failure; returns what it could not undo (empty when all is gone). DIR is kept when something
 * is still mounted under it (removing it would reach into that mount).
 */
export async function tearDown(o: TearDownOptions): Promise<string[]> {
  const { layout, state, log } = o;
  const left: string[] = [];
  const kubelet = byName(state, 'kubelet');
  if (kubelet && !(await stopRecorded(kubelet, STOP_GRACE_MS))) left.push('kubelet');
  const tasks = await taskIds(layout);
  await removePods(o);
  for (const record of [...state.processes].reverse()) {
    if (record.name === 'kubelet') continue;
    if (!(await stopRecorded(record, STOP_GRACE_MS))) left.push(`${record.name} ${record.pid}`);
  }
  left.push(...(await killStragglers(layout.dir, log)));
  left.push(...(await removeCgroupTrees(state.cgroupDirs)).map((c) => `cgroup ${c}`));
  const mounts = await unmountUnder(layout.dir, log);
  left.push(...mounts);
  try {
    const restored = await restoreSysctls(state.sysctls);
    if (restored.length > 0) log(`restored ${restored.join(', ')}`);
  } catch (e) {
    left.push(`sysctls: ${(e as Error).message}`);
  }
  await removeLogLinks(layout.dir);
  for (const id of tasks) {
    const socket = shimSocketPath({
      containerdSocket: layout.containerd.socket,
      namespace: 'k8s.io',
      id,
    });
    await rm(socket, { force: true });
  }
  for (const dir of state.absentBefore) await rmdir(dir).catch(() => undefined);
  if (mounts.length === 0) {
    await rm(layout.dir, { recursive: true, force: true });
  } else if (existsSync(layout.dir)) {
    left.push(`${layout.dir} (kept: something is still mounted under it)`);
  }
  return left;
}
