#!/usr/bin/env node
// After `turbo run build`, expose every app's bundled executables in the top-level bin/.
// An app declares them in its package.json "bin" map ({ "netledger-ipam": "dist/netledger-ipam.mjs" }).
import {
  readdirSync,
  readFileSync,
  mkdirSync,
  writeFileSync,
  chmodSync,
  existsSync,
} from 'node:fs';
import { join, dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const binDir = join(root, 'bin');
mkdirSync(binDir, { recursive: true });
const appsDir = join(root, 'apps');
const apps = existsSync(appsDir) ? readdirSync(appsDir) : [];
let linked = 0;
for (const app of apps) {
  const pkgPath = join(appsDir, app, 'package.json');
  if (!existsSync(pkgPath)) continue;
  const bins = JSON.parse(readFileSync(pkgPath, 'utf8')).bin ?? {};
  for (const [name, rel] of Object.entries(bins)) {
    const src = join(appsDir, app, rel);
    if (!existsSync(src))
      throw new Error(`${app}: bin ${name} points at ${rel}, which the build did not produce`);
    // A two-line launcher rather than a copy, so native dependencies still resolve from the app's
    // node_modules; the bundle itself (dist/<name>.mjs) is the file to install elsewhere.
    const target = join(binDir, name);
    writeFileSync(target, `#!/usr/bin/env node\nimport '${relative(binDir, src)}';\n`);
    chmodSync(target, 0o755);
    linked++;
  }
}
console.log(`bin/: ${linked} executable(s)`);
