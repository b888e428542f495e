import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The workspace root (where pnpm-workspace.yaml is). */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
/** The CNI plugin's static client (its Node.js fallback beside it) and netledgerctl, from `pnpm build`. */
export const PLUGIN = join(ROOT, 'bin', 'netledger-ipam');
export const CTL = join(ROOT, 'bin', 'netledgerctl');
export const KUBE_CONTROLLERS = join(ROOT, 'bin', 'netledger-kube-controllers');
/** The device daemon and its client verbs. */
export const DEVICE = join(ROOT, 'bin', 'netledger-device');
/** Calico's CRD manifests. */
export const CRD_DIR = join(ROOT, 'packages', 'datastore-k8s', 'crds');

/** Fails (never skips) when the executables have not been built. */
export function requireBins(bins: readonly string[] = [PLUGIN, CTL]): void {
  for (const bin of bins) {
    if (!existsSync(bin)) throw new Error(`${bin} is missing: run pnpm build (at ${ROOT}) first`);
  }
}
