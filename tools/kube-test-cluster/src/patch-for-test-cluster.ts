import { isAbsolute, join } from 'node:path';
import type { ClusterLayout } from './cluster-layout.js';

/** A Kubernetes object as JSON, loosely typed: the patch reads pod templates and ConfigMaps. */
export type KubeObject = Record<string, unknown>;

interface VolumeMount {
  name: string;
  mountPath: string;
  readOnly?: boolean;
}
interface Probe {
  exec?: { command?: string[] };
  httpGet?: { port?: number | string };
  tcpSocket?: { port?: number | string };
}
interface ContainerView {
  imagePullPolicy?: string;
  args?: string[];
  command?: string[];
  env?: { name: string; value?: string }[];
  ports?: { containerPort: number; hostPort?: number }[];
  volumeMounts?: VolumeMount[];
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  startupProbe?: Probe;
}
interface PodSpecView {
  hostNetwork?: boolean;
  dnsPolicy?: string;
  volumes?: { name: string; hostPath?: { path: string } }[];
  containers?: ContainerView[];
  initContainers?: ContainerView[];
}

/** Host paths that must stay the host's own: kernel interfaces, not state a node keeps. */
const KERNEL_PATHS = ['/proc', '/sys', '/dev', '/lib/modules', '/run/xtables.lock'];

/** The agent's socket as the manifests and the plugin name it by default. */
const AGENT_SOCKET = '/run/netledger/node.sock';

/**
 * Where a hostPath volume lands in the test cluster: the CNI bin and config dirs are DIR's
 * (containerd reads them there), kernel interfaces stay, and any other path moves under
 * DIR/host, so installing netledger writes nothing outside DIR.
 */
export function testClusterHostPath(path: string, layout: ClusterLayout): string {
  const clean = path.replace(/\/+$/, '') || '/';
  if (clean === '/opt/cni/bin') return layout.cni.binDir;
  if (clean === '/etc/cni/net.d') return layout.cni.confDir;
  if (KERNEL_PATHS.some((k) => clean === k || clean.startsWith(`${k}/`))) return path;
  return isAbsolute(clean) ? join(layout.hostDir, clean) : path;
}

/** Options for {@link patchForTestCluster}. */
export interface TestClusterPatchOptions {
  readonly layout: ClusterLayout;
  readonly apiserver: { readonly host: string; readonly port: number };
  /**
   * A free port on the host for each container port ({@link containerPorts}): on the host's
   * network the manifests' fixed ports (kube-controllers' 9094) would clash with another
   * cluster's on the same machine. A port not in the map is left as it is.
   */
  readonly hostPorts: ReadonlyMap<number, number>;
}

function podSpecOf(object: KubeObject): PodSpecView | undefined {
  const spec = object.spec as { template?: { spec?: PodSpecView } } | undefined;
  if (object.kind === 'Pod') return object.spec as PodSpecView | undefined;
  return spec?.template?.spec;
}

/** The container ports the pod templates of `objects` declare, each once, in order. */
export function containerPorts(objects: readonly KubeObject[]): number[] {
  const pods = objects.map(podSpecOf).filter((p): p is PodSpecView => p !== undefined);
  const ports = pods.flatMap((p) =>
    [...(p.containers ?? []), ...(p.initContainers ?? [])].flatMap((c) =>
      (c.ports ?? []).map((port) => port.containerPort),
    ),
  );
  return [...new Set(ports)];
}

const under = (path: string, dir: string): boolean => path === dir || path.startsWith(`${dir}/`);

/** Every argument vector a container hands out: its command, args and exec probes. */
function argVectors(c: ContainerView): string[][] {
  const probes = [c.readinessProbe, c.livenessProbe, c.startupProbe];
  return [c.command, c.args, ...probes.map((p) => p?.exec?.command)].filter(
    (v): v is string[] => v !== undefined,
  );
}

/**
 * A path a container hands to the host (the agent's socket, named in the conflist the runtime
 * reads) must name the same file on both sides: each hostPath moved into DIR/host is also
 * mounted at its new path, and arguments naming a file under the old mount name it there.
 */
function mountMovedPathsAlike(c: ContainerView, moved: ReadonlyMap<string, string>): void {
  for (const mount of [...(c.volumeMounts ?? [])]) {
    const to = moved.get(mount.name);
    if (to === undefined) continue;
    c.volumeMounts!.push({ ...mount, mountPath: to });
    for (const vector of argVectors(c)) {
      vector.forEach((arg, i) => {
        if (under(arg, mount.mountPath)) vector[i] = to + arg.slice(mount.mountPath.length);
      });
    }
  }
}

/** A port argument (`--metrics-listen=0.0.0.0:9094`) moved to `port` on loopback. */
function movePortArg(arg: string, from: number, to: number): string {
  const m = /^(.*=)?[^=]*:(\d+)$/.exec(arg);
  return m && Number(m[2]) === from ? `${m[1] ?? ''}127.0.0.1:${to}` : arg;
}

/** Each container port of a host-network pod moved to a free one: the ports, probes and args. */
function moveHostPorts(c: ContainerView, hostPorts: ReadonlyMap<number, number>): void {
  for (const port of c.ports ?? []) {
    const from = port.containerPort;
    const to = hostPorts.get(from);
    if (to === undefined) continue;
    port.containerPort = to;
    if (port.hostPort !== undefined) port.hostPort = to;
    for (const probe of [c.readinessProbe, c.livenessProbe, c.startupProbe]) {
      if (probe?.httpGet?.port === from) probe.httpGet.port = to;
      if (probe?.tcpSocket?.port === from) probe.tcpSocket.port = to;
    }
    if (c.args) c.args = c.args.map((a) => movePortArg(a, from, to));
  }
}

/** install-cni's settings: the conflist names the agent's socket where the host finds it. */
function patchCniSettings(object: KubeObject, layout: ClusterLayout): void {
  const data = object.data as Record<string, string> | undefined;
  if (object.kind !== 'ConfigMap' || data?.CNI_CONF_NAME === undefined) return;
  data.NETLEDGER_AGENT_SOCKET ??= testClusterHostPath(AGENT_SOCKET, layout);
}

function patchPod(pod: PodSpecView, o: TestClusterPatchOptions): void {
  pod.hostNetwork = true;
  pod.dnsPolicy = 'ClusterFirstWithHostNet';
  const moved = new Map<string, string>();
  for (const volume of pod.volumes ?? []) {
    if (!volume.hostPath) continue;
    const to = testClusterHostPath(volume.hostPath.path, o.layout);
    if (under(to, o.layout.hostDir)) moved.set(volume.name, to);
    volume.hostPath.path = to;
  }
  const apiEnv = [
    { name: 'KUBERNETES_SERVICE_HOST', value: o.apiserver.host },
    { name: 'KUBERNETES_SERVICE_PORT', value: String(o.apiserver.port) },
  ];
  for (const container of [...(pod.containers ?? []), ...(pod.initContainers ?? [])]) {
    container.imagePullPolicy = 'Never';
    const kept = (container.env ?? []).filter((e) => !apiEnv.some((a) => a.name === e.name));
    container.env = [...kept, ...apiEnv];
    mountMovedPathsAlike(container, moved);
    moveHostPorts(container, o.hostPorts);
  }
}

/**
 * The project's manifests made to run on the one-node test cluster (a copy; the input is not
 * changed). In every pod template: hostPath volumes moved by {@link testClusterHostPath} (a
 * path moved into DIR/host also mounted at its new path, with the arguments and exec probes that
 * name a file under it naming it there), host network on (the API server listens on loopback
 * only) with KUBERNETES_SERVICE_HOST/PORT pointing at it, each container port on a free host
 * port (`hostPorts`) on loopback, and every image used as imported (imagePullPolicy Never: no
 * registry is reachable). A Deployment runs one replica (more on the host network of one node
 * would want the same ports). install-cni's ConfigMap (the one with CNI_CONF_NAME) gets
 * NETLEDGER_AGENT_SOCKET, the agent's socket as the host sees it, unless it sets one.
 */
export function patchForTestCluster(
  objects: readonly KubeObject[],
  o: TestClusterPatchOptions,
): KubeObject[] {
  return objects.map((original) => {
    const object = structuredClone(original);
    patchCniSettings(object, o.layout);
    const pod = podSpecOf(object);
    if (!pod) return object;
    patchPod(pod, o);
    const spec = object.spec as { replicas?: number };
    if (object.kind === 'Deployment' && (spec.replicas ?? 1) > 1) spec.replicas = 1;
    return object;
  });
}
