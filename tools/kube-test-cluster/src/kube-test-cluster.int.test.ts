// A real one-node cluster: kubelet, containerd, runc, the CNI plugins, kube-controller-manager
// and kube-scheduler built from the pin, as root. Needs the binaries built (`npm test` builds
// them first: bin/kube-test-apiserver --build) and the Debian packages of
// scripts/prerequisites.mjs.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeBenchResults } from '@netledger/bench';
import { resolveKubeBinaries } from '@netledger/kube-test-apiserver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterLayout, POD_CIDR } from './cluster-layout.js';
import type { ClusterLayout } from './cluster-layout.js';
import { readClusterState } from './cluster-state.js';
import type { ClusterState } from './cluster-state.js';
import { taskIds } from './containerd-runtime.js';
import { CLUSTER_SYSCTLS, readSysctls } from './host-sysctls.js';
import { createKubectl } from './kubectl.js';
import type { Kubectl } from './kubectl.js';
import { mountsUnder, parseMountinfo } from './mount-table.js';
import { isSameLiveProcess, processesMentioning } from './proc-table.js';
import { runCommand } from './run-command.js';
import { shimSocketPath } from './shim-sockets.js';
import { clusterCli, root, watchPodTimes } from './test-cluster-cli.js';
import {
  busyboxDeployment,
  eventually,
  podNetworkProblems,
  startupLatency,
} from './test-workloads.js';
import type { PodView } from './test-workloads.js';

const REPLICAS = 30;

/** The addresses host-local holds: one file per reserved IP in its data dir. */
async function hostLocalReservations(layout: ClusterLayout): Promise<string[]> {
  const network = join(layout.cni.hostLocalDataDir, 'kube-test-host-local');
  const files = await readdir(network).catch(() => []);
  return files.filter((f) => /^\d+\.\d+\.\d+\.\d+$/.test(f)).sort();
}

describe('kube-test-cluster up --cni host-local', () => {
  let parent: string;
  let layout: ClusterLayout;
  let state: ClusterState;
  let kubectl: Kubectl;
  let crictl: string;
  let sysctlsBefore: Record<string, string>;
  const namespace = `ktc-${randomBytes(3).toString('hex')}`;

  beforeAll(async () => {
    if (process.getuid?.() !== 0) throw new Error('kube-test-cluster tests must run as root');
    parent = await mkdtemp(join(tmpdir(), 'ktc-'));
    layout = clusterLayout(join(parent, 'cluster'));
    sysctlsBefore = await readSysctls(CLUSTER_SYSCTLS);
    const started = Date.now();
    const up = await clusterCli(['up', '--dir', layout.dir, '--cni', 'host-local']);
    expect(up.status, up.stderr).toBe(0);
    expect(up.stdout).toBe(`${layout.kubeconfig}\n`);
    console.log(`up --cni host-local: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    state = (await readClusterState(layout.stateFile))!;
    const binaries = await resolveKubeBinaries({
      env: process.env,
      home: process.env.HOME ?? '/root',
      log: () => {},
      build: false,
      goModuleDir: join(root, 'tools', 'kube-test-apiserver', 'go'),
    });
    crictl = binaries.paths.crictl;
    kubectl = createKubectl({
      bin: binaries.paths.kubectl,
      kubeconfig: layout.kubeconfig,
      cacheDir: join(parent, 'kubectl-cache'),
    });
  }, 600_000);

  afterAll(async () => {
    // Also when a test failed half-way: down undoes whatever is left (nothing if already down).
    if (layout) {
      const down = await clusterCli(['down', '--dir', layout.dir]);
      if (down.status !== 0) console.error(down.stderr);
    }
    if (parent) await rm(parent, { recursive: true, force: true });
  }, 300_000);

  it('the node is Ready with host-local installed, as the admin kubeconfig in DIR shows', async () => {
    const node = await kubectl(['get', 'node', layout.nodeName, '-o', 'json']);
    expect(node.status, node.stderr).toBe(0);
    const view = JSON.parse(node.stdout) as {
      spec: { podCIDR?: string };
      status: { conditions: { type: string; status: string }[]; addresses: object[] };
    };
    expect(view.status.conditions).toContainEqual(
      expect.objectContaining({ type: 'Ready', status: 'True' }),
    );
    expect(view.spec.podCIDR).toBe(POD_CIDR);
    expect(view.status.addresses).toContainEqual({ type: 'InternalIP', address: '127.0.0.1' });
    const conflists = await readdir(layout.cni.confDir);
    expect(conflists).toEqual(['10-host-local.conflist']);
    expect(state.processes.map((p) => p.name)).toEqual([
      'kube-test-apiserver',
      'containerd',
      'kube-controller-manager',
      'kube-scheduler',
      'kubelet',
    ]);
    for (const p of state.processes)
      expect(isSameLiveProcess(p.pid, p.startTime), p.name).toBe(true);
  });

  it(`${REPLICAS} replicas get ${REPLICAS} distinct host-local addresses, each Ready and pinging another pod`, async () => {
    expect((await kubectl(['create', 'namespace', namespace])).status).toBe(0);
    // ServiceAccount admission refuses pods until the controller has made `default`.
    await eventually(
      async () =>
        (await kubectl(['get', 'serviceaccount', 'default', '-n', namespace])).status === 0,
      'the namespace has its default ServiceAccount',
    );
    const watch = await watchPodTimes(layout.kubeconfig, namespace);
    let pods: PodView[] = [];
    try {
      const applied = await kubectl(
        ['apply', '-f', '-'],
        JSON.stringify(busyboxDeployment(namespace, REPLICAS)),
      );
      expect(applied.status, applied.stderr).toBe(0);
      await eventually(async () => {
        const r = await kubectl(['get', 'pods', '-n', namespace, '-o', 'json']);
        pods = (JSON.parse(r.stdout) as { items: PodView[] }).items;
        const ready = pods.filter((p) =>
          p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
        );
        return ready.length === REPLICAS && pods.length === REPLICAS;
      }, `${REPLICAS} pods Ready`);
      await eventually(
        async () => {
          watch.check();
          return [...watch.times.values()].filter((t) => t.ready !== undefined).length === REPLICAS;
        },
        'the watch saw every pod Ready',
        30_000,
      );
    } finally {
      watch.stop();
    }

    const { p50, p99 } = startupLatency(watch.times.values());
    console.log(`host-local: ${REPLICAS} pods, creation to Ready p50 ${p50} ms, p99 ${p99} ms`);
    writeBenchResults('kube-test-cluster-pod-startup', {
      title: `Pod start-up, creation to Ready, ${REPLICAS} pods of one Deployment (host-local IPAM)`,
      command:
        'pnpm --filter @netledger/kube-test-cluster exec vitest run src/kube-test-cluster.int.test.ts',
      results: [
        { name: 'host-local p50', value: p50, unit: 'ms', better: 'lower' },
        { name: 'host-local p99', value: p99, unit: 'ms', better: 'lower' },
      ],
    });

    const ips = pods.map((p) => p.status.podIP!);
    expect(new Set(ips).size).toBe(REPLICAS);
    for (const ip of ips) expect(ip).toMatch(/^10\.244\.0\.\d+$/);
    // host-local holds exactly the addresses the API reports.
    expect(await hostLocalReservations(layout)).toEqual([...ips].sort());

    // containerd 1.6 puts each pod's shim socket outside DIR; `down` finds them by this formula.
    const sandboxes = await runCommand(crictl, [
      '--config',
      layout.containerd.crictlConfig,
      'pods',
      '-q',
    ]);
    const sandboxIds = sandboxes.stdout.trim().split('\n');
    expect(sandboxIds).toHaveLength(REPLICAS);
    const tasks = await taskIds(layout);
    for (const id of sandboxIds) {
      expect(tasks).toContain(id);
      const socket = shimSocketPath({
        containerdSocket: layout.containerd.socket,
        namespace: 'k8s.io',
        id,
      });
      expect(existsSync(socket), socket).toBe(true);
    }

    expect(await podNetworkProblems(kubectl, namespace, pods)).toEqual([]);
  }, 600_000);

  it('scaling to 0 frees every address and removes every sandbox', async () => {
    const scaled = await kubectl(['scale', '-n', namespace, 'deployment/busybox', '--replicas=0']);
    expect(scaled.status, scaled.stderr).toBe(0);
    await eventually(async () => {
      const r = await kubectl(['get', 'pods', '-n', namespace, '-o', 'name']);
      return r.status === 0 && r.stdout.trim() === '';
    }, 'every pod gone');
    // kubelet removes a sandbox (its CNI DEL) after the pod object is gone: wait for that.
    await eventually(
      async () => (await hostLocalReservations(layout)).length === 0,
      'no reservation',
    );
    await eventually(async () => {
      const r = await runCommand(crictl, [
        '--config',
        layout.containerd.crictlConfig,
        'pods',
        '--state',
        'ready',
        '-q',
      ]);
      return r.status === 0 && r.stdout.trim() === '';
    }, 'no ready sandbox in containerd');
  }, 300_000);

  it('down stops everything, unmounts, removes the cgroups and DIR, and restores the sysctls', async () => {
    const down = await clusterCli(['down', '--dir', layout.dir]);
    expect(down.status, down.stderr).toBe(0);
    expect(existsSync(layout.dir)).toBe(false);
    for (const p of state.processes)
      expect(isSameLiveProcess(p.pid, p.startTime), p.name).toBe(false);
    expect(processesMentioning(`${layout.dir}/`)).toEqual([]);
    const mounts = parseMountinfo(await readFile('/proc/self/mountinfo', 'utf8'));
    expect(mountsUnder(mounts, layout.dir)).toEqual([]);
    for (const cgroup of state.cgroupDirs) expect(existsSync(cgroup), cgroup).toBe(false);
    expect(await readSysctls(CLUSTER_SYSCTLS)).toEqual(sysctlsBefore);
    const again = await clusterCli(['down', '--dir', layout.dir]);
    expect(again.status).toBe(0);
    expect(again.stderr).toContain('nothing to do');
  }, 300_000);
});
