import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/** The overlays of deploy/, one per datastore, each rendered to deploy/netledger-<name>.yaml. */
export const OVERLAYS = ['kubernetes', 'etcd'] as const;
export type Overlay = (typeof OVERLAYS)[number];

/** The rendered manifest of `overlay`, relative to the root. */
export function renderedPath(overlay: Overlay): string {
  return join('deploy', `netledger-${overlay}.yaml`);
}

/** `$KUBECTL`, else `kubectl` on the PATH (kubectl has kustomize built in). */
export function kubectlBinary(env: NodeJS.ProcessEnv): string {
  return env['KUBECTL'] || 'kubectl';
}

/**
 * `kubectl kustomize deploy/overlays/<overlay>` under a header saying so: the single-file manifest
 * of that overlay. Throws with kubectl's message when it fails, or when there is no kubectl.
 */
export function renderOverlay(root: string, overlay: Overlay, kubectl: string): string {
  let yaml: string;
  try {
    yaml = execFileSync(kubectl, ['kustomize', join(root, 'deploy', 'overlays', overlay)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (e) {
    const err = e as { code?: string; stderr?: string; message: string };
    if (err.code === 'ENOENT')
      throw new Error(`${kubectl} not found: install kubectl or set KUBECTL`, { cause: e });
    throw new Error(
      `kubectl kustomize deploy/overlays/${overlay}: ${err.stderr?.trim() || err.message}`,
      {
        cause: e,
      },
    );
  }
  return `# netledger on the ${overlay} datastore: every object of deploy/overlays/${overlay}, rendered by
# \`pnpm manifests\` (kubectl kustomize). Generated: edit the kustomize sources, not this file.
#   kubectl apply --server-side -f deploy/netledger-${overlay}.yaml
${yaml}`;
}
