import { existsSync } from 'node:fs';
import {
  copyFile,
  mkdir,
  readdir,
  readFile,
  rename,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { join } from 'node:path';
import { findFreePort, resolveKubeBinaries } from '@netledger/kube-test-apiserver';
import type { ResolvedKubeBinaries } from '@netledger/kube-test-apiserver';
import { cgroupHierarchies, makeCgroupRoot } from './cgroup-tree.js';
import type { ClusterLayout } from './cluster-layout.js';
import { newClusterState, writeClusterState } from './cluster-state.js';
import type { ClusterState } from './cluster-state.js';
import { renderContainerdConfig, renderCrictlConfig } from './containerd-config.js';
import { ctr, importImages } from './containerd-runtime.js';
import { controllerManagerArgs, schedulerArgs } from './control-plane-args.js';
import { startDaemon } from './daemon-process.js';
import type { StartedDaemon } from './daemon-process.js';
import { DEBIAN_CNI_DIR, HOST_PROGRAMS, missingHostPrograms } from './host-prerequisites.js';
import {
  CNI_PLUGINS,
  HOST_LOCAL_CONFLIST,
  renderHostLocalConflist,
} from './host-local-conflist.js';
import { CLUSTER_SYSCTLS, readSysctls } from './host-sysctls.js';
import { createKubectl } from './kubectl.js';
import type { Kubectl } from './kubectl.js';
import { kubeletArgs, renderKubeletConfig } from './kubelet-config.js';
import { KubeTestClusterError } from './kube-test-cluster-error.js';
import { parseMountinfo } from './mount-table.js';
import { installNetledger } from './netledger-install.js';
import type { NetledgerWorkload } from './netledger-install.js';
import {
  missingNetledgerInputs,
  netledgerInputs,
  netledgerInputsMessage,
} from './netledger-manifests.js';
import { nodeReadiness } from './node-condition.js';
import type { NodeStatusView } from './node-condition.js';
import { buildNodeImages, PAUSE_IMAGE } from './node-images.js';
import type { CniChoice } from './parse-args.js';
import { tearDown } from './tear-down.js';
import { waitUntil } from './wait-until.js';
import { workloadsReady } from './workload-readiness.js';
import type { WorkloadView } from './workload-readiness.js';
import { kubeTestApiserverDir } from './workspace-root.js';

/** Options for {@link up}. */
export interface UpOptions {
  readonly layout: ClusterLayout;
  readonly cni: CniChoice;
  /** The workspace root (kube-test-apiserver's source and netledger's inputs are there). */
  readonly root: string;
  readonly env: NodeJS.ProcessEnv;
  readonly home: string;
  readonly log: (line: string) => void;
  /** Aborting stops a start in progress: what was started is torn down, and it throws. */
  readonly signal?: AbortSignal;
}

/** Directories outside DIR that kubelet or containerd make when missing (see ClusterState). */
const OUTSIDE_DIRS = ['/var/log/containers', '/run/containerd/s', '/run/containerd'];

const STEP_TIMEOUT_MS = 120_000;

/** Refuses, before anything is made, what cannot work: not root, a busy DIR, missing inputs. */
async function checkPreconditions(o: UpOptions): Promise<void> {
  if (process.getuid?.() !== 0) {
    throw new KubeTestClusterError(
      'MISSING_PREREQUISITE',
      'kube-test-cluster must run as root: it runs containerd and kubelet, mounts and makes cgroups',
    );
  }
  const kind = await stat(o.layout.dir).catch(() => undefined);
  if (kind && !kind.isDirectory()) {
    throw new KubeTestClusterError('USAGE', `--dir ${o.layout.dir}: not a directory`);
  }
  const entries = kind ? await readdir(o.layout.dir) : [];
  if (entries.includes('cluster.json')) {
    throw new KubeTestClusterError(
      'USAGE',
      `--dir ${o.layout.dir}: a cluster is already there; \`kube-test-cluster down --dir ` +
        `${o.layout.dir}\` first`,
    );
  }
  if (entries.length > 0) {
    throw new KubeTestClusterError(
      'USAGE',
      `--dir ${o.layout.dir}: not empty; up makes a new directory (or uses an empty one)`,
    );
  }
  const missing = missingHostPrograms();
  if (missing.length > 0) {
    throw new KubeTestClusterError('MISSING_PREREQUISITE', `missing: ${missing.join(', ')}`);
  }
  if (o.cni === 'netledger') {
    const inputs = missingNetledgerInputs(netledgerInputs(o.env, o.root), existsSync);
    if (inputs.length > 0) {
      throw new KubeTestClusterError('NETLEDGER_INPUTS_MISSING', netledgerInputsMessage(inputs));
    }
  }
}

/** The running cluster's parts that the steps of {@link up} share. */
interface Cluster {
  readonly o: UpOptions;
  readonly binaries: ResolvedKubeBinaries;
  readonly daemons: StartedDaemon[];
  state: ClusterState;
}

async function saveState(c: Cluster, change: Partial<ClusterState>): Promise<void> {
  c.state = { ...c.state, ...change };
  await writeClusterState(c.o.layout.stateFile, c.state);
}

/** Starts a daemon with its log in DIR/logs and records it in the state file at once. */
async function daemon(
  c: Cluster,
  d: { name: string; bin: string; args: readonly string[]; env?: NodeJS.ProcessEnv },
): Promise<StartedDaemon> {
  const started = await startDaemon({
    ...d,
    logFile: join(c.o.layout.logDir, `${d.name}.log`),
    env: d.env ?? c.o.env,
  });
  c.daemons.push(started);
  await saveState(c, { processes: [...c.state.processes, started.record] });
  return started;
}

/** kube-test-apiserver (etcd and kube-apiserver) with the node's identity; its URL's port. */
async function startApiserver(c: Cluster): Promise<{ host: string; port: number }> {
  const { layout } = c.o;
  await mkdir(layout.apiserver.tmp, { recursive: true });
  await daemon(c, {
    name: 'kube-test-apiserver',
    bin: process.execPath,
    // Its temp dir (certificates, etcd's data) under DIR too.
    env: { ...c.o.env, TMPDIR: layout.apiserver.tmp },
    args: [
      join(c.o.root, 'scripts', 'run-ts.mjs'),
      join(kubeTestApiserverDir(c.o.root), 'src', 'main.ts'),
      '--listen',
      '127.0.0.1:0',
      '--kubeconfig-out',
      layout.apiserver.kubeconfig,
      '--node',
      layout.nodeName,
      '--with-controller-manager',
      '--no-build',
    ],
  });
  // The tokens file is written last, after the kubeconfig, once /readyz is ok.
  await waitUntil(async () => ({ done: existsSync(layout.apiserver.tokens) }), {
    what: 'kube-test-apiserver to be ready',
    timeoutMs: STEP_TIMEOUT_MS,
    daemons: c.daemons,
    signal: c.o.signal,
  });
  const { server } = JSON.parse(await readFile(layout.apiserver.tokens, 'utf8')) as {
    server: string;
  };
  const url = new URL(server);
  return { host: url.hostname, port: Number(url.port) };
}

/** The kubelet's kubeconfig: the cluster and the node's own context, nothing else. */
async function writeKubeletKubeconfig(c: Cluster, kubectl: Kubectl): Promise<void> {
  const { layout } = c.o;
  const context = `system:node:${layout.nodeName}`;
  const args = ['config', 'view', '--raw', '--minify', '--flatten', '--context', context];
  const r = await kubectl(args);
  if (r.status !== 0) {
    throw new KubeTestClusterError('START_FAILED', `kubectl ${args.join(' ')}: ${r.stderr}`);
  }
  await writeFile(layout.kubelet.kubeconfig, r.stdout, { mode: 0o600 });
}

/** DIR's CNI bin dir with Debian's plugins, and for host-local its conflist. */
async function prepareCni(c: Cluster): Promise<void> {
  const { cni } = c.o.layout;
  await mkdir(cni.binDir, { recursive: true });
  await mkdir(cni.confDir, { recursive: true });
  for (const plugin of CNI_PLUGINS) {
    await symlink(join(DEBIAN_CNI_DIR, plugin), join(cni.binDir, plugin));
  }
  if (c.o.cni === 'host-local') {
    await writeFile(join(cni.confDir, HOST_LOCAL_CONFLIST), renderHostLocalConflist(c.o.layout));
  }
}

/** containerd with DIR's config, once it answers; then the images imported. */
async function startContainerd(c: Cluster, archives: readonly string[]): Promise<void> {
  const { layout } = c.o;
  await mkdir(layout.containerd.dir, { recursive: true });
  await writeFile(
    layout.containerd.config,
    renderContainerdConfig({ layout, sandboxImage: PAUSE_IMAGE, runc: HOST_PROGRAMS.runc.path }),
  );
  await writeFile(layout.containerd.crictlConfig, renderCrictlConfig(layout));
  await daemon(c, {
    name: 'containerd',
    bin: HOST_PROGRAMS.containerd.path,
    args: ['--config', layout.containerd.config],
  });
  await waitUntil(
    async () => ({ done: (await ctr(HOST_PROGRAMS.ctr.path, layout, ['version'])).status === 0 }),
    {
      what: 'containerd to answer',
      timeoutMs: STEP_TIMEOUT_MS,
      daemons: c.daemons,
      signal: c.o.signal,
    },
  );
  for (const archive of archives) await importImages(HOST_PROGRAMS.ctr.path, layout, archive);
}

/** What kubelet and the CNI plugins change on the host, recorded; the pods' cgroup root made. */
async function prepareHost(c: Cluster): Promise<void> {
  const { layout } = c.o;
  const hierarchies = cgroupHierarchies(
    parseMountinfo(await readFile('/proc/self/mountinfo', 'utf8')),
  );
  await saveState(c, {
    sysctls: await readSysctls(CLUSTER_SYSCTLS),
    cgroupDirs: hierarchies.map((h) => join(h, layout.cgroupRoot)),
  });
  await makeCgroupRoot(hierarchies, layout.cgroupRoot);
  await writeFile(
    layout.kubelet.resolvConf,
    existsSync('/etc/resolv.conf') ? await readFile('/etc/resolv.conf') : '',
  );
}

async function startKubelet(c: Cluster): Promise<void> {
  const { layout } = c.o;
  const port = await findFreePort();
  await writeFile(layout.kubelet.config, renderKubeletConfig({ layout, port }));
  await daemon(c, { name: 'kubelet', bin: c.binaries.paths.kubelet, args: kubeletArgs(layout) });
}

/** Waits for the node's Ready condition, then for the `default` ServiceAccount pods need. */
async function waitForNode(c: Cluster, kubectl: Kubectl): Promise<void> {
  const { nodeName } = c.o.layout;
  const wait = { daemons: c.daemons, signal: c.o.signal, timeoutMs: 180_000, intervalMs: 500 };
  await waitUntil(
    async () => {
      const r = await kubectl(['get', 'node', nodeName, '-o', 'json']);
      if (r.status !== 0) return { done: false, why: r.stderr.trim() };
      const { ready, why } = nodeReadiness(JSON.parse(r.stdout) as NodeStatusView);
      return { done: ready, why };
    },
    { ...wait, what: `node ${nodeName} to be Ready` },
  );
  await waitUntil(
    async () => ({
      done: (await kubectl(['get', 'serviceaccount', 'default', '-n', 'default'])).status === 0,
    }),
    { ...wait, what: 'the default ServiceAccount' },
  );
}

/** Waits until every pod of netledger's DaemonSets and Deployments is Ready (the agent synced). */
async function waitForNetledger(
  c: Cluster,
  kubectl: Kubectl,
  workloads: readonly NetledgerWorkload[],
): Promise<void> {
  await waitUntil(
    async () => {
      const views: WorkloadView[] = [];
      for (const w of workloads) {
        const r = await kubectl(['get', w.kind, w.name, '-n', w.namespace, '-o', 'json']);
        if (r.status !== 0) return { done: false, why: r.stderr.trim() };
        views.push(JSON.parse(r.stdout) as WorkloadView);
      }
      const { ready, why } = workloadsReady(views);
      return { done: ready, why };
    },
    {
      what: 'netledger to be ready (its agent and kube-controllers)',
      daemons: c.daemons,
      signal: c.o.signal,
      timeoutMs: 180_000,
      intervalMs: 500,
    },
  );
}

/**
 * Brings a cluster up in `layout.dir` and resolves once its node is Ready with the chosen IPAM
 * (for netledger: its agent and kube-controllers Ready too), having written DIR/kubeconfig last. Refuses (USAGE, MISSING_PREREQUISITE,
 * NETLEDGER_INPUTS_MISSING) before making anything; builds the Kubernetes binaries if they are
 * not cached. On any later failure, or an abort, it tears down what it started and removes DIR,
 * then throws START_FAILED with the failing component's log tail.
 */
export async function up(o: UpOptions): Promise<{ kubeconfig: string; seconds: number }> {
  const started = Date.now();
  const elapsed = (): string => `${((Date.now() - started) / 1000).toFixed(1)} s`;
  await checkPreconditions(o);
  const binaries = await resolveKubeBinaries({
    env: o.env,
    home: o.home,
    log: o.log,
    goModuleDir: join(kubeTestApiserverDir(o.root), 'go'),
    ...(o.signal && { signal: o.signal }),
  });
  const { layout } = o;
  await mkdir(layout.logDir, { recursive: true });
  const c: Cluster = { o, binaries, daemons: [], state: newClusterState(o.cni, new Date()) };
  await saveState(c, {
    absentBefore: OUTSIDE_DIRS.filter((d) => !existsSync(d)),
  });
  try {
    const apiserver = await startApiserver(c);
    o.log(`kube-test-apiserver ready at ${elapsed()}`);
    const kubectl = createKubectl({
      bin: binaries.paths.kubectl,
      kubeconfig: layout.apiserver.kubeconfig,
      cacheDir: join(layout.dir, 'kubectl-cache'),
    });
    await mkdir(layout.kubelet.certDir, { recursive: true });
    await writeKubeletKubeconfig(c, kubectl);
    await mkdir(layout.imageDir, { recursive: true });
    const nodeImages = join(layout.imageDir, 'node-images.oci.tar');
    await buildNodeImages({
      busybox: HOST_PROGRAMS.busybox.path,
      workDir: join(layout.imageDir, 'build'),
      out: nodeImages,
    });
    await prepareCni(c);
    await prepareHost(c);
    const inputs = netledgerInputs(o.env, o.root);
    await startContainerd(c, [nodeImages, ...(o.cni === 'netledger' ? inputs.images : [])]);
    o.log(`containerd ready, images imported at ${elapsed()}`);
    await daemon(c, {
      name: 'kube-controller-manager',
      bin: binaries.paths['kube-controller-manager'],
      args: controllerManagerArgs(layout.apiserver.kubeconfig),
    });
    await daemon(c, {
      name: 'kube-scheduler',
      bin: binaries.paths['kube-scheduler'],
      args: schedulerArgs(layout.apiserver.kubeconfig),
    });
    await startKubelet(c);
    const netledger =
      o.cni === 'netledger'
        ? await installNetledger({ layout, inputs, kubectl, apiserver, log: o.log })
        : [];
    await waitForNode(c, kubectl);
    o.log(`node ${layout.nodeName} Ready (${o.cni}) at ${elapsed()}`);
    if (netledger.length > 0) {
      await waitForNetledger(c, kubectl, netledger);
      o.log(`netledger ready at ${elapsed()}`);
    }
    const tmp = `${layout.kubeconfig}.tmp`;
    await copyFile(layout.apiserver.kubeconfig, tmp);
    await rename(tmp, layout.kubeconfig);
    return { kubeconfig: layout.kubeconfig, seconds: (Date.now() - started) / 1000 };
  } catch (e) {
    o.log(`start failed at ${elapsed()}; the end of each log, then tearing down what was started`);
    for (const d of c.daemons) o.log(`--- ${d.logFile}\n${d.logTail(15)}`);
    const left = await tearDown({
      layout,
      state: c.state,
      log: o.log,
      crictl: binaries.paths.crictl,
    });
    if (left.length > 0) o.log(`could not undo: ${left.join('; ')}`);
    throw e;
  }
}
