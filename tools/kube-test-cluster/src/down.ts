import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { resolveKubeBinaries } from '@netledger/kube-test-apiserver';
import type { ClusterLayout } from './cluster-layout.js';
import { readClusterState } from './cluster-state.js';
import { KubeTestClusterError } from './kube-test-cluster-error.js';
import { tearDown } from './tear-down.js';
import { kubeTestApiserverDir } from './workspace-root.js';

/** Options for {@link down}. */
export interface DownOptions {
  readonly layout: ClusterLayout;
  readonly env: NodeJS.ProcessEnv;
  readonly home: string;
  readonly log: (line: string) => void;
  /** The workspace root, where the pin of the binaries up ran is. */
  readonly root: string;
}

/**
 * Tears down the cluster in `layout.dir` (see {@link tearDown}) and removes the directory.
 * Nothing to do when it does not exist. Throws NOT_A_CLUSTER, changing nothing, when it has no
 * state file of `up`'s; TEARDOWN_INCOMPLETE listing what is left when it could not undo all.
 */
export async function down(o: DownOptions): Promise<'removed' | 'absent'> {
  const { layout } = o;
  if (!existsSync(layout.dir)) return 'absent';
  const state = await readClusterState(layout.stateFile);
  if (!state) {
    throw new KubeTestClusterError(
      'NOT_A_CLUSTER',
      `--dir ${layout.dir}: no cluster.json of kube-test-cluster there; not touching it`,
    );
  }
  // crictl was built with the binaries up ran; without it pods are killed, not removed via CRI.
  const crictl = await resolveKubeBinaries({
    env: o.env,
    home: o.home,
    log: o.log,
    build: false,
    goModuleDir: join(kubeTestApiserverDir(o.root), 'go'),
  })
    .then((b) => b.paths.crictl)
    .catch(() => undefined);
  const left = await tearDown({ layout, state, log: o.log, crictl });
  if (left.length > 0) {
    throw new KubeTestClusterError(
      'TEARDOWN_INCOMPLETE',
      `could not undo everything in ${layout.dir}: ${left.join('; ')}`,
    );
  }
  return 'removed';
}
