// pnpm images: builds netledger's OCI image archives into dist/images/ (or --out DIR) and prints
// each one's reference, digest and size. Needs `pnpm build` first.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { buildImages } from './build-images.js';

/** The workspace root: up from the current directory to pnpm-workspace.yaml. */
function workspaceRoot(): string {
  for (let dir = process.cwd(); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'pnpm-workspace.yaml'))) return dir;
    if (dirname(dir) === dir) throw new Error('not inside the netledger workspace');
  }
}

const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

try {
  const { values } = parseArgs({ options: { out: { type: 'string' } }, strict: true });
  const root = workspaceRoot();
  const outDir = values.out === undefined ? join(root, 'dist', 'images') : resolve(values.out);
  for (const image of buildImages({ root, outDir })) {
    console.log(
      `${image.path}\n  ${image.reference}\n  manifest ${image.manifestDigest}\n  ${mib(image.size)} archive, ${mib(image.unpackedSize)} unpacked`,
    );
  }
} catch (e) {
  console.error(`pnpm images: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
}
