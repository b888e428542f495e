import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ClusterLayout } from './cluster-layout.js';
import { KubeTestClusterError } from './kube-test-cluster-error.js';
import type { CommandResult } from './run-command.js';
import { commandLine, runCommand } from './run-command.js';

/** The containerd namespace of the CRI plugin: the images kubelet can use live there. */
const CRI_NAMESPACE = 'k8s.io';

/** Runs `ctr` against the cluster's containerd, in the CRI namespace. */
export function ctr(
  bin: string,
  layout: ClusterLayout,
  args: readonly string[],
): Promise<CommandResult> {
  return runCommand(bin, ['--address', layout.containerd.socket, '-n', CRI_NAMESPACE, ...args]);
}

/**
 * Imports an OCI archive into the cluster's containerd (`ctr images import`, which unpacks it
 * for the overlayfs snapshotter). Throws START_FAILED with ctr's error.
 */
export async function importImages(
  bin: string,
  layout: ClusterLayout,
  archive: string,
): Promise<void> {
  const args = ['images', 'import', archive];
  const r = await ctr(bin, layout, args);
  if (r.status !== 0) {
    throw new KubeTestClusterError(
      'START_FAILED',
      `${commandLine('ctr', args)} failed (${r.status}): ${r.stderr.trim()}`,
    );
  }
}

/** The IDs of the containerd tasks (pod sandboxes and containers) in the CRI namespace now. */
export async function taskIds(layout: ClusterLayout): Promise<string[]> {
  try {
    return await readdir(
      join(layout.containerd.state, 'io.containerd.runtime.v2.task', CRI_NAMESPACE),
    );
  } catch {
    return [];
  }
}
