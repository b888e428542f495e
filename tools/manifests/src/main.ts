// pnpm manifests: refreshes deploy/'s generated files, the CRD copies of the kustomize base
// (deploy/base/crds/, from packages/datastore-k8s/crds) and the rendered manifest of each overlay
// (deploy/netledger-<overlay>.yaml, kubectl kustomize), and prints what changed.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { syncCrdCopies } from './crd-copies.js';
import { OVERLAYS, kubectlBinary, renderOverlay, renderedPath } from './render-overlay.js';

function workspaceRoot(): string {
  for (let dir = process.cwd(); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'pnpm-workspace.yaml'))) return dir;
    if (dirname(dir) === dir) throw new Error('not inside the netledger workspace');
  }
}

try {
  const root = workspaceRoot();
  const changed = syncCrdCopies(root);
  for (const overlay of OVERLAYS) {
    const path = join(root, renderedPath(overlay));
    const text = renderOverlay(root, overlay, kubectlBinary(process.env));
    if (existsSync(path) && readFileSync(path, 'utf8') === text) continue;
    writeFileSync(path, text);
    changed.push(renderedPath(overlay));
  }
  console.log(
    changed.length === 0 ? 'deploy/ is up to date' : changed.map((c) => `written ${c}`).join('\n'),
  );
} catch (e) {
  console.error(`pnpm manifests: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
}
