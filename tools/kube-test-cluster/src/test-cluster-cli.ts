// Test helpers: the kube-test-cluster CLI run from source, as scripts run bin/kube-test-cluster.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig, Watch } from '@kubernetes/client-node';
import type { CommandResult } from './run-command.js';
import { runCommand } from './run-command.js';
import { findWorkspaceRoot } from './workspace-root.js';

export const root = findWorkspaceRoot(fileURLToPath(import.meta.url));

/** Runs `kube-test-cluster <args>` (its source, so never stale) and resolves when it exits. */
export function clusterCli(
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<CommandResult> {
  const main = join(root, 'tools', 'kube-test-cluster', 'src', 'main.ts');
  return runCommand(process.execPath, [join(root, 'scripts', 'run-ts.mjs'), main, ...args], {
    timeoutMs: options.timeoutMs ?? 600_000,
    ...(options.env && { env: options.env }),
  });
}

/** When the test saw a pod appear, and when it first saw it Ready (ms since the epoch). */
export interface PodTimes {
  readonly name: string;
  readonly added: number;
  ready?: number;
}

interface PodView {
  metadata?: { name?: string };
  status?: { conditions?: { type: string; status: string }[] };
}

/**
 * Watches the pods of `namespace` with the kubeconfig at `kubeconfig` and records, per pod, when
 * the ADDED event arrived (its creation, as seen by a client) and when the first event with the
 * Ready condition True arrived. `stop()` ends the watch and throws what broke it, if anything.
 * It watches from resourceVersion 0 (the watch cache as it is): a watch from "now" makes the API
 * server wait for its cache to reach etcd's revision, which on etcd 3.4 (no progress requests)
 * ends in "Too large resource version" when nothing else writes pods.
 */
export async function watchPodTimes(
  kubeconfig: string,
  namespace: string,
): Promise<{ times: Map<string, PodTimes>; check: () => void; stop: () => void }> {
  const kc = new KubeConfig();
  kc.loadFromString(readFileSync(kubeconfig, 'utf8'));
  const times = new Map<string, PodTimes>();
  let failure: unknown;
  const abort = await new Watch(kc).watch(
    `/api/v1/namespaces/${namespace}/pods`,
    { resourceVersion: '0' },
    (phase, pod: PodView) => {
      const now = Date.now();
      if (phase === 'ERROR') failure ??= new Error(`pod watch: ${JSON.stringify(pod)}`);
      const name = pod.metadata?.name;
      if (!name) return;
      if (phase === 'ADDED' && !times.has(name)) times.set(name, { name, added: now });
      const entry = times.get(name);
      const ready = pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
      if (entry && ready && entry.ready === undefined) entry.ready = now;
    },
    (err: unknown) => {
      if (err) failure = err;
    },
  );
  const check = (): void => {
    if (failure) throw failure instanceof Error ? failure : new Error(JSON.stringify(failure));
  };
  return {
    times,
    check,
    stop: () => {
      check();
      abort.abort();
    },
  };
}
