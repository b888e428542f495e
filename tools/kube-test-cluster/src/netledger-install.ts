import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { ClusterLayout } from './cluster-layout.js';
import type { Kubectl } from './kubectl.js';
import { KubeTestClusterError } from './kube-test-cluster-error.js';
import { NETLEDGER_INPUTS, patchForTestCluster } from './netledger-manifests.js';
import type { KubeObject } from './netledger-manifests.js';

/**
 * Installs netledger on the test cluster from the workspace's kustomize overlay (its images are
 * already imported into containerd): renders it with `kubectl kustomize`, patches it for the
 * cluster ({@link patchForTestCluster}) and applies it server-side. The node becomes Ready once
 * the agent's init container has written its conflist into DIR's CNI config dir, which the
 * caller waits for. Throws START_FAILED with kubectl's error.
 */
export async function installNetledger(o: {
  layout: ClusterLayout;
  /** The directory with deploy/ (the workspace root by default). */
  from: string;
  kubectl: Kubectl;
  apiserver: { host: string; port: number };
  log: (line: string) => void;
}): Promise<void> {
  const overlay = join(o.from, NETLEDGER_INPUTS.overlay);
  const rendered = await o.kubectl(['kustomize', overlay]);
  if (rendered.status !== 0) {
    throw new KubeTestClusterError(
      'START_FAILED',
      `kubectl kustomize ${overlay}: ${rendered.stderr}`,
    );
  }
  const objects = parseAllDocuments(rendered.stdout)
    .map((d) => d.toJS() as KubeObject | null)
    .filter((d): d is KubeObject => d !== null);
  const patched = patchForTestCluster(objects, o);
  const list = { apiVersion: 'v1', kind: 'List', items: patched };
  const applied = await o.kubectl(
    ['apply', '--server-side', '--field-manager=kube-test-cluster', '-f', '-'],
    JSON.stringify(list),
  );
  if (applied.status !== 0) {
    throw new KubeTestClusterError('START_FAILED', `kubectl apply (netledger): ${applied.stderr}`);
  }
  o.log(`netledger applied from ${NETLEDGER_INPUTS.overlay} (${patched.length} objects)`);
}
