import type { CommandResult } from './run-command.js';
import { runCommand } from './run-command.js';

/** Runs kubectl against one cluster; never rejects (see {@link runCommand}). */
export type Kubectl = (args: readonly string[], input?: string) => Promise<CommandResult>;

/**
 * A {@link Kubectl} with `bin` (the kubectl built from the same pin as the cluster), the
 * kubeconfig `kubeconfig`, and its discovery cache in `cacheDir` rather than ~/.kube.
 */
export function createKubectl(o: { bin: string; kubeconfig: string; cacheDir: string }): Kubectl {
  return (args, input) =>
    runCommand(o.bin, ['--kubeconfig', o.kubeconfig, '--cache-dir', o.cacheDir, ...args], {
      ...(input !== undefined && { input }),
    });
}
