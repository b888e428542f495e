// The one-node cluster with netledger installed from the project's images and manifests
// (after `pnpm build`: it builds the images itself with `pnpm images --out`, and runs bin/netledgerctl): kubelet → containerd → ptp → netledger-ipam (the static
// client) → the agent of the netledger-node DaemonSet, on the Kubernetes datastore, with
// netledger-kube-controllers' GC. As root, like kube-test-cluster.int.test.ts.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeBenchResults } from '@netledger/bench';
import { resolveKubeBinaries } from '@netledger/kube-test-apiserver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLUSTER_CIDR, clusterLayout } from './cluster-layout.js';
import type { ClusterLayout } from './cluster-layout.js';
import { createKubectl } from './kubectl.js';
import type { Kubectl } from './kubectl.js';
import { TEST_LEAK_GRACE_PERIOD } from './netledger-test-resources.js';
import { processesMentioning } from './proc-table.js';
import { runCommand } from './run-command.js';
import { clusterCli, root, watchPodTimes } from './test-cluster-cli.js';
import {
  busyboxDeployment,
  eventually,
  isReady,
  listPods,
  podNetworkProblems,
  startupLatency,
  waitForReadyPods,
} from './test-workloads.js';
import type { PodView } from './test-workloads.js';

const REPLICAS = 30;
const AGENT_SELECTOR = 'app.kubernetes.io/name=netledger-node';
const GRACE_MS = Number.parseInt(TEST_LEAK_GRACE_PERIOD, 10) * 1000;

/** The parts of `netledgerctl ipam check -o FILE` (calicoctl's CheckReport) the tests read. */
interface CheckReportView {
  allocations: Record<
    string,
    { handle?: string; pod?: string; namespace?: string; node?: string; inUse: boolean }[]
  >;
  leakedHandles?: { ID: string }[];
}

const inCidr16 = (ip: string): boolean => ip.startsWith(`${CLUSTER_CIDR.split('.0.0/')[0]}.`);

describe('kube-test-cluster up --cni netledger', () => {
  let parent: string;
  let layout: ClusterLayout;
  let kubectl: Kubectl;
  let crictlBin: string;
  const namespace = `ktn-${randomBytes(3).toString('hex')}`;

  const crictl = (args: readonly string[]) =>
    runCommand(crictlBin, ['--config', layout.containerd.crictlConfig, ...args]);

  /** bin/netledgerctl (the bundle `pnpm build` makes) on the cluster's Kubernetes datastore. */
  const netledgerctl = (args: readonly string[]) =>
    runCommand(join(root, 'bin', 'netledgerctl'), args, {
      env: { ...process.env, DATASTORE_TYPE: 'kubernetes', KUBECONFIG: layout.kubeconfig },
      timeoutMs: 120_000,
    });

  async function ipamCheck(): Promise<{ report: CheckReportView; output: string }> {
    const file = join(parent, `check-${randomBytes(4).toString('hex')}.json`);
    const r = await netledgerctl(['ipam', 'check', '-o', file]);
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(await readFile(file, 'utf8')) as CheckReportView;
    await rm(file, { force: true });
    return { report, output: r.stdout + r.stderr };
  }

  /** The IPAMHandle objects on the Kubernetes datastore, by name. */
  async function handles(): Promise<string[]> {
    const r = await kubectl(['get', 'ipamhandles.crd.projectcalico.org', '-o', 'name']);
    expect(r.status, r.stderr).toBe(0);
    return r.stdout
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => l.replace(/^.*\//, ''))
      .sort();
  }

  /** Every pod's address is allocated to it (its namespace and name, this node), and only those. */
  async function expectAllocationsOf(pods: readonly PodView[]): Promise<void> {
    const { report } = await ipamCheck();
    expect(Object.keys(report.allocations).sort()).toEqual(pods.map((p) => p.status.podIP!).sort());
    for (const pod of pods) {
      expect(report.allocations[pod.status.podIP!]).toEqual([
        expect.objectContaining({
          pod: pod.metadata.name,
          namespace,
          node: layout.nodeName,
          handle: expect.stringMatching(/^k8s-pod-network\.[0-9a-f]{64}$/) as unknown,
        }),
      ]);
    }
    expect(report.leakedHandles ?? []).toEqual([]);
    expect(await handles()).toHaveLength(pods.length);
  }

  beforeAll(async () => {
    if (process.getuid?.() !== 0) throw new Error('kube-test-cluster tests must run as root');
    parent = await mkdtemp(join(tmpdir(), 'ktn-'));
    layout = clusterLayout(join(parent, 'cluster'));
    // The images of this checkout's build, into the test's own directory (npm test builds the
    // apps, not the images; dist/images may be stale or absent).
    const imagesDir = join(parent, 'images');
    const images = await runCommand(
      process.execPath,
      [
        join(root, 'scripts', 'run-ts.mjs'),
        join(root, 'tools', 'images', 'src', 'main.ts'),
        '--out',
        imagesDir,
      ],
      { timeoutMs: 300_000 },
    );
    expect(images.status, images.stderr).toBe(0);
    const started = Date.now();
    const up = await clusterCli(['up', '--dir', layout.dir, '--cni', 'netledger'], {
      env: { ...process.env, KUBE_TEST_CLUSTER_NETLEDGER_IMAGES: imagesDir },
    });
    expect(up.status, up.stderr).toBe(0);
    expect(up.stdout).toBe(`${layout.kubeconfig}\n`);
    console.log(`up --cni netledger: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const binaries = await resolveKubeBinaries({
      env: process.env,
      home: process.env.HOME ?? '/root',
      log: () => {},
      build: false,
      goModuleDir: join(root, 'tools', 'kube-test-apiserver', 'go'),
    });
    crictlBin = binaries.paths.crictl;
    kubectl = createKubectl({
      bin: binaries.paths.kubectl,
      kubeconfig: layout.kubeconfig,
      cacheDir: join(parent, 'kubectl-cache'),
    });
    expect((await kubectl(['create', 'namespace', namespace])).status).toBe(0);
    // ServiceAccount admission refuses pods until the controller has made `default`.
    await eventually(
      async () =>
        (await kubectl(['get', 'serviceaccount', 'default', '-n', namespace])).status === 0,
      'the namespace has its default ServiceAccount',
    );
  }, 600_000);

  afterAll(async () => {
    // Also when a test failed half-way: down undoes whatever is left (nothing if already down).
    if (layout) {
      const down = await clusterCli(['down', '--dir', layout.dir]);
      if (down.status !== 0) console.error(down.stderr);
    }
    if (parent) await rm(parent, { recursive: true, force: true });
  }, 300_000);

  it("the agent's init container installed the static client and its conflist, and nothing else", async () => {
    const conf = await readdir(layout.cni.confDir);
    expect(conf.filter((f) => f.endsWith('.conflist'))).toEqual(['10-netledger.conflist']);
    const conflist = JSON.parse(
      await readFile(join(layout.cni.confDir, '10-netledger.conflist'), 'utf8'),
    ) as { name: string; plugins: { type: string; ipam?: Record<string, unknown> }[] };
    expect(conflist.name).toBe('k8s-pod-network');
    expect(conflist.plugins[0]).toMatchObject({
      type: 'ptp',
      ipam: { type: 'netledger-ipam', nodename: layout.nodeName, datastore_type: 'kubernetes' },
    });
    expect(existsSync(join(layout.cni.binDir, 'netledger-ipam'))).toBe(true);
    const agent = await listPods(kubectl, 'kube-system', AGENT_SELECTOR);
    expect(agent).toHaveLength(1);
  });

  it(`${REPLICAS} replicas get ${REPLICAS} distinct addresses from netledger, each held by its pod and pinging another`, async () => {
    const watch = await watchPodTimes(layout.kubeconfig, namespace);
    let pods: PodView[];
    try {
      const applied = await kubectl(
        ['apply', '-f', '-'],
        JSON.stringify(busyboxDeployment(namespace, REPLICAS)),
      );
      expect(applied.status, applied.stderr).toBe(0);
      pods = await waitForReadyPods(kubectl, {
        namespace,
        selector: 'app=busybox',
        count: REPLICAS,
      });
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
    console.log(`netledger: ${REPLICAS} pods, creation to Ready p50 ${p50} ms, p99 ${p99} ms`);
    writeBenchResults('kube-test-cluster-pod-startup-netledger', {
      title: `Pod start-up, creation to Ready, ${REPLICAS} pods of one Deployment (netledger IPAM)`,
      command:
        'pnpm --filter @netledger/kube-test-cluster exec vitest run src/netledger-cluster.int.test.ts',
      results: [
        { name: 'netledger p50', value: p50, unit: 'ms', better: 'lower' },
        { name: 'netledger p99', value: p99, unit: 'ms', better: 'lower' },
      ],
    });

    const ips = pods.map((p) => p.status.podIP!);
    expect(new Set(ips).size).toBe(REPLICAS);
    for (const ip of ips) expect(inCidr16(ip), ip).toBe(true);
    // netledger's store holds exactly these addresses, each for its pod.
    await expectAllocationsOf(pods);

    expect(await podNetworkProblems(kubectl, namespace, pods)).toEqual([]);
  }, 600_000);

  it("crictl rmp -f of a pod's sandbox runs its CNI DEL: nothing leaks, and kubelet starts the pod again", async () => {
    const [victim] = await listPods(kubectl, namespace, 'app=busybox');
    const listed = await crictl(['pods', '-q', '--name', victim!.metadata.name]);
    const sandbox = listed.stdout.trim();
    expect(sandbox).toMatch(/^[0-9a-f]{64}$/);
    const removed = await crictl(['rmp', '--force', sandbox]);
    expect(removed.status, removed.stderr).toBe(0);
    await eventually(async () => {
      const r = await crictl(['pods', '-q', '--state', 'ready', '--name', victim!.metadata.name]);
      return r.stdout.trim() !== '' && r.stdout.trim() !== sandbox;
    }, 'kubelet ran a new sandbox for the pod');
    let pods: PodView[] = [];
    await eventually(async () => {
      pods = await listPods(kubectl, namespace, 'app=busybox');
      if (pods.length !== REPLICAS || !pods.every(isReady)) return false;
      const allocated = Object.keys((await ipamCheck()).report.allocations).sort();
      return (
        allocated.join() ===
        pods
          .map((p) => p.status.podIP)
          .sort()
          .join()
      );
    }, 'every pod Ready, the API and netledger agreeing on each address');
    // containerd 1.6 stops a sandbox (the CNI DEL) before removing it, and refuses to remove
    // it when the DEL fails: the old handle is gone, not leaked.
    await expectAllocationsOf(pods);
  }, 300_000);

  it("an address whose CNI DEL never ran is reclaimed by netledger-kube-controllers after its grace period, never a live pod's", async () => {
    // A sandbox whose runtime state was lost (the way a node reboot with containerd's state on
    // tmpfs loses it) had its CNI ADD and never gets a DEL. kubelet stops every sandbox it does
    // not know (with a DEL), so the ADD is run here as containerd runs it: the static client with
    // the conflist's config, for a pod the API has (unscheduled, so no kubelet runs it).
    const ghost = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'ghost', namespace },
      spec: {
        nodeSelector: { 'kube-test-cluster/none': 'true' },
        containers: [{ name: 'c', image: 'kube-test-cluster.local/busybox:1' }],
      },
    };
    const created = await kubectl(['apply', '-f', '-'], JSON.stringify(ghost));
    expect(created.status, created.stderr).toBe(0);
    const conflist = JSON.parse(
      await readFile(join(layout.cni.confDir, '10-netledger.conflist'), 'utf8'),
    ) as { cniVersion: string; name: string; plugins: Record<string, unknown>[] };
    const containerId = randomBytes(32).toString('hex');
    const add = await runCommand(join(layout.cni.binDir, 'netledger-ipam'), [], {
      input: JSON.stringify({
        ...conflist.plugins[0],
        cniVersion: conflist.cniVersion,
        name: conflist.name,
      }),
      env: {
        PATH: process.env.PATH,
        CNI_COMMAND: 'ADD',
        CNI_CONTAINERID: containerId,
        CNI_NETNS: '/proc/self/ns/net',
        CNI_IFNAME: 'eth0',
        CNI_PATH: layout.cni.binDir,
        CNI_ARGS: `IgnoreUnknown=1;K8S_POD_NAMESPACE=${namespace};K8S_POD_NAME=ghost;K8S_POD_INFRA_CONTAINER_ID=${containerId}`,
      },
    });
    expect(add.status, add.stdout + add.stderr).toBe(0);
    const leaked = (JSON.parse(add.stdout) as { ips: { address: string }[] }).ips[0]!.address;
    const leakedIp = leaked.split('/')[0]!;
    const deleted = await kubectl(['delete', 'pod', '-n', namespace, 'ghost', '--wait=true']);
    expect(deleted.status, deleted.stderr).toBe(0);
    const deletedAt = Date.now();

    const live = await listPods(kubectl, namespace, 'app=busybox');
    const before = await ipamCheck();
    expect(before.report.allocations[leakedIp]).toEqual([
      expect.objectContaining({
        pod: 'ghost',
        namespace,
        handle: `k8s-pod-network.${containerId}`,
      }),
    ]);
    await eventually(
      async () => (await ipamCheck()).report.allocations[leakedIp] === undefined,
      `the leaked ${leakedIp} released`,
      180_000,
    );
    const releasedAfter = Date.now() - deletedAt;
    console.log(`leak ${leakedIp} reclaimed ${(releasedAfter / 1000).toFixed(1)} s after delete`);
    expect(releasedAfter).toBeGreaterThanOrEqual(GRACE_MS);
    expect(await handles()).not.toContain(`k8s-pod-network.${containerId}`);
    // Every live pod keeps its address and handle.
    await expectAllocationsOf(live);
  }, 300_000);

  it('with the agent pod deleted, new pods wait and start once the DaemonSet has recreated it, with no duplicate address', async () => {
    const [agent] = await listPods(kubectl, 'kube-system', AGENT_SELECTOR);
    const gone = await kubectl([
      'delete',
      'pod',
      '-n',
      'kube-system',
      agent!.metadata.name,
      '--wait=false',
    ]);
    expect(gone.status, gone.stderr).toBe(0);
    const more = REPLICAS + 5;
    const scaled = await kubectl([
      'scale',
      '-n',
      namespace,
      'deployment/busybox',
      `--replicas=${more}`,
    ]);
    expect(scaled.status, scaled.stderr).toBe(0);
    // The old pod stays listed (and Ready) while it terminates: wait for its replacement.
    await eventually(async () => {
      const agents = await listPods(kubectl, 'kube-system', AGENT_SELECTOR);
      return (
        agents.length === 1 &&
        agents[0]!.metadata.uid !== agent!.metadata.uid &&
        isReady(agents[0]!)
      );
    }, 'the DaemonSet has recreated the agent pod, Ready');
    const pods = await waitForReadyPods(kubectl, {
      namespace,
      selector: 'app=busybox',
      count: more,
    });
    const ips = pods.map((p) => p.status.podIP!);
    expect(new Set(ips).size).toBe(more);
    await expectAllocationsOf(pods);
    const events = await kubectl([
      'get',
      'events',
      '-n',
      namespace,
      '--field-selector',
      'reason=FailedCreatePodSandBox',
      '-o',
      'name',
    ]);
    console.log(
      `agent away: ${events.stdout.split('\n').filter((l) => l !== '').length} FailedCreatePodSandBox events (kubelet retried)`,
    );
  }, 300_000);

  it('scaling to 0 frees every address: ipam check clean, no handle left', async () => {
    const scaled = await kubectl(['scale', '-n', namespace, 'deployment/busybox', '--replicas=0']);
    expect(scaled.status, scaled.stderr).toBe(0);
    await eventually(
      async () => (await listPods(kubectl, namespace)).length === 0,
      'every pod gone',
    );
    // kubelet removes a sandbox (its CNI DEL) after the pod object is gone: wait for that.
    await eventually(async () => (await handles()).length === 0, 'no IPAMHandle left');
    const { report, output } = await ipamCheck();
    expect(report.allocations).toEqual({});
    expect(report.leakedHandles ?? []).toEqual([]);
    expect(output).toContain('found 0 problems');
  }, 300_000);

  it('down stops everything and removes DIR', async () => {
    const down = await clusterCli(['down', '--dir', layout.dir]);
    expect(down.status, down.stderr).toBe(0);
    expect(existsSync(layout.dir)).toBe(false);
    expect(processesMentioning(`${layout.dir}/`)).toEqual([]);
  }, 300_000);
});
