// kube-test-cluster: a one-node Kubernetes cluster (kubelet, containerd, runc) on loopback for
// tests. `up --dir DIR` returns once the node is Ready; `down --dir DIR` undoes it all.
import { homedir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { clusterLayout } from './cluster-layout.js';
import { down } from './down.js';
import { KubeTestClusterError } from './kube-test-cluster-error.js';
import { parseArgs, USAGE } from './parse-args.js';
import type { Command } from './parse-args.js';
import { up } from './up.js';
import { findWorkspaceRoot } from './workspace-root.js';

const log = (line: string): void => {
  process.stderr.write(`kube-test-cluster: ${line}\n`);
};

/** Aborts on the first SIGTERM or SIGINT, so `up` tears down what it started. */
function abortOnSignal(): AbortController {
  const abort = new AbortController();
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () =>
      abort.abort(
        new KubeTestClusterError(
          'START_FAILED',
          `${signal} during up: stopped what it had started`,
        ),
      ),
    );
  }
  return abort;
}

async function main(argv: readonly string[]): Promise<number> {
  let command: Command;
  try {
    command = parseArgs(argv, process.cwd());
  } catch (e) {
    log(e instanceof Error ? e.message : String(e));
    return 2;
  }
  if (command.kind === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const layout = clusterLayout(command.dir);
  const root = findWorkspaceRoot(fileURLToPath(import.meta.url));
  const common = { layout, root, env: process.env, home: homedir(), log };
  if (command.kind === 'down') {
    const result = await down(common);
    log(
      result === 'absent' ? `${layout.dir} does not exist: nothing to do` : `removed ${layout.dir}`,
    );
    return 0;
  }
  const abort = abortOnSignal();
  const result = await up({ ...common, cni: command.cni, signal: abort.signal });
  log(`up in ${result.seconds.toFixed(1)} s; kubectl --kubeconfig ${result.kubeconfig} get nodes`);
  process.stdout.write(`${result.kubeconfig}\n`);
  return 0;
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (e) {
  log(e instanceof KubeTestClusterError ? e.message : String((e as Error)?.stack ?? e));
  process.exitCode = e instanceof KubeTestClusterError && e.code === 'USAGE' ? 2 : 1;
}
