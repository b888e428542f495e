import { isAbsolute, join } from 'node:path';
import type { ClusterLayout } from './cluster-layout.js';

/**
 * What `--cni netledger` installs, relative to the workspace root (or
 * `$KUBE_TEST_CLUSTER_NETLEDGER_FROM`): the OCI archives `pnpm images` writes, and the kustomize
 * overlay of the Kubernetes datastore under deploy/.
 */
export const NETLEDGER_INPUTS = {
  images: ['dist/images/netledger-node.oci.tar', 'dist/images/netledger-kube-controllers.oci.tar'],
  overlay: 'deploy/overlays/kubernetes',
} as const;

/** The inputs of {@link NETLEDGER_INPUTS} that `exists` does not find, as relative paths. */
export function missingNetledgerInputs(root: string, exists: (path: string) => boolean): string[] {
  const wanted = [...NETLEDGER_INPUTS.images, `${NETLEDGER_INPUTS.overlay}/kustomization.yaml`];
  return wanted.filter((relative) => !exists(join(root, relative)));
}

/** The one-paragraph refusal of `--cni netledger` without its inputs. */
export function netledgerInputsMessage(missing: readonly string[]): string {
  return (
    `--cni netledger: missing ${missing.join(', ')}. It installs netledger from the project's ` +
    `own images (\`pnpm images\` writes dist/images/netledger-node.oci.tar and ` +
    `netledger-kube-controllers.oci.tar) and its kustomize overlay for the Kubernetes datastore ` +
    `(${NETLEDGER_INPUTS.overlay}); build them first, or use --cni host-local.`
  );
}

/** A Kubernetes object as JSON, loosely typed: the patch reads only pod templates. */
export type KubeObject = Record<string, unknown>;

interface PodSpecView {
  hostNetwork?: boolean;
  dnsPolicy?: string;
  volumes?: { hostPath?: { path: string } }[];
  containers?: ContainerView[];
  initContainers?: ContainerView[];
}
interface ContainerView {
  imagePullPolicy?: string;
  env?: { name: string; value?: string }[];
}

/** Host paths that must stay the host's own: kernel interfaces, not state a node keeps. */
const KERNEL_PATHS = ['/proc', '/sys', '/dev', '/lib/modules', '/run/xtables.lock'];

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

function podSpecOf(object: KubeObject): PodSpecView | undefined {
  const spec = object.spec as { template?: { spec?: PodSpecView } } | undefined;
  if (object.kind === 'Pod') return object.spec as PodSpecView | undefined;
  return spec?.template?.spec;
}

/**
 * The project's manifests made to run on the test cluster (a copy; the input is not changed):
 * in every pod template, hostPath volumes moved by {@link testClusterHostPath}, host network on
 * (the API server listens on loopback only) with KUBERNETES_SERVICE_HOST/PORT pointing at it,
 * and every image used as imported (imagePullPolicy Never: no registry is reachable).
 */
export function patchForTestCluster(
  objects: readonly KubeObject[],
  o: { layout: ClusterLayout; apiserver: { host: string; port: number } },
): KubeObject[] {
  return objects.map((original) => {
    const object = structuredClone(original);
    const pod = podSpecOf(object);
    if (!pod) return object;
    pod.hostNetwork = true;
    pod.dnsPolicy = 'ClusterFirstWithHostNet';
    for (const volume of pod.volumes ?? []) {
      if (volume.hostPath)
        volume.hostPath.path = testClusterHostPath(volume.hostPath.path, o.layout);
    }
    const apiEnv = [
      { name: 'KUBERNETES_SERVICE_HOST', value: o.apiserver.host },
      { name: 'KUBERNETES_SERVICE_PORT', value: String(o.apiserver.port) },
    ];
    for (const container of [...(pod.containers ?? []), ...(pod.initContainers ?? [])]) {
      container.imagePullPolicy = 'Never';
      const kept = (container.env ?? []).filter((e) => !apiEnv.some((a) => a.name === e.name));
      container.env = [...kept, ...apiEnv];
    }
    return object;
  });
}
