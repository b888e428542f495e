import { findFreePort } from '@netledger/kube-test-apiserver';
import { parseAllDocuments } from 'yaml';
import type { ClusterLayout } from './cluster-layout.js';
import { CLUSTER_CIDR } from './cluster-layout.js';
import type { Kubectl } from './kubectl.js';
import { KubeTestClusterError } from './kube-test-cluster-error.js';
import type { NetledgerInputs } from './netledger-manifests.js';
import { netledgerTestResources } from './netledger-test-resources.js';
import { containerPorts, patchForTestCluster } from './patch-for-test-cluster.js';
import type { KubeObject } from './patch-for-test-cluster.js';

/** A workload netledger's manifests run, for the caller to wait on. */
export interface NetledgerWorkload {
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
}

const asList = (items: readonly KubeObject[]): string =>
  JSON.stringify({ apiVersion: 'v1', kind: 'List', items });

async function kubectlOk(kubectl: Kubectl, args: string[], input?: string): Promise<string> {
  const r = await kubectl(args, input);
  if (r.status !== 0) {
    throw new KubeTestClusterError('START_FAILED', `kubectl ${args.join(' ')}: ${r.stderr.trim()}`);
  }
  return r.stdout;
}

const meta = (o: KubeObject) => o.metadata as { name: string; namespace?: string };

/**
 * Installs netledger on the test cluster as deploy/README.md says an operator does, from the
 * Kubernetes datastore's kustomize overlay (its images are already imported into containerd):
 * renders it with `kubectl kustomize`, patches it for the cluster ({@link patchForTestCluster},
 * each container port of the host-network pods on a free port), applies its CRDs server-side and
 * waits until they are Established, creates the pool install-cni's settings name over the
 * cluster CIDR and the KubeControllersConfiguration `default` (a short leak grace period:
 * {@link netledgerTestResources}), then applies the rest. Returns the DaemonSets and Deployments
 * applied, which the caller waits for: the node becomes Ready once the agent's init container
 * has written its conflist into DIR's CNI config dir. Throws START_FAILED with kubectl's error.
 */
export async function installNetledger(o: {
  layout: ClusterLayout;
  inputs: NetledgerInputs;
  kubectl: Kubectl;
  apiserver: { host: string; port: number };
  log: (line: string) => void;
}): Promise<NetledgerWorkload[]> {
  const { kubectl } = o;
  const rendered = await kubectlOk(kubectl, ['kustomize', o.inputs.overlay]);
  const objects = parseAllDocuments(rendered)
    .map((d) => d.toJS() as KubeObject | null)
    .filter((d): d is KubeObject => d !== null);
  const hostPorts = new Map<number, number>();
  for (const port of containerPorts(objects)) hostPorts.set(port, await findFreePort());
  const patched = patchForTestCluster(objects, {
    layout: o.layout,
    apiserver: o.apiserver,
    hostPorts,
  });
  const apply = ['apply', '--server-side', '--field-manager=kube-test-cluster', '-f', '-'];

  const crds = patched.filter((x) => x.kind === 'CustomResourceDefinition');
  await kubectlOk(kubectl, apply, asList(crds));
  await kubectlOk(kubectl, [
    'wait',
    '--for=condition=Established',
    '--timeout=60s',
    ...crds.map((c) => `crd/${meta(c).name}`),
  ]);
  const settings = patched.find(
    (x) => x.kind === 'ConfigMap' && (x.data as Record<string, string>)?.CNI_CONF_NAME,
  );
  const ipv4Pools = (settings?.data as Record<string, string> | undefined)?.NETLEDGER_IPV4_POOLS;
  await kubectlOk(
    kubectl,
    apply,
    asList(netledgerTestResources({ ipv4Pools, cidr: CLUSTER_CIDR })),
  );
  const rest = patched.filter((x) => x.kind !== 'CustomResourceDefinition');
  await kubectlOk(kubectl, apply, asList(rest));
  o.log(`netledger applied from ${o.inputs.overlay} (${patched.length} objects)`);
  return rest
    .filter((x) => x.kind === 'DaemonSet' || x.kind === 'Deployment')
    .map((x) => ({
      kind: x.kind as string,
      namespace: meta(x).namespace ?? 'default',
      name: meta(x).name,
    }));
}
