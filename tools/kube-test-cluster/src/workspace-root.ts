import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The workspace root: up from `from` (this file, its bundle in dist/, or a bundle run-ts.mjs
 * made) to the directory with pnpm-workspace.yaml. Throws when there is none: the tool runs
 * only from a checkout.
 */
export function findWorkspaceRoot(from: string): string {
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'pnpm-workspace.yaml'))) return dir;
    if (dirname(dir) === dir) throw new Error(`kube-test-cluster: no workspace above ${from}`);
  }
}

/** tools/kube-test-apiserver in the workspace: its source runs the API server, its go/ pins. */
export function kubeTestApiserverDir(root: string): string {
  return join(root, 'tools', 'kube-test-apiserver');
}
