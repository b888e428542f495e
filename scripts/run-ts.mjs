#!/usr/bin/env node
// Runs a TypeScript entry point of this workspace with plain Node: bundles it (workspace packages
// from source, npm dependencies left external) into a temp file next to it, then imports it.
// Usage: node scripts/run-ts.mjs <file.ts> [args...]
import { build } from 'esbuild';
import { nodeBundle } from './esbuild-node.mjs';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [entry, ...args] = process.argv.slice(2);
if (!entry) {
  console.error('usage: run-ts.mjs <file.ts> [args...]');
  process.exit(2);
}
const abs = resolve(entry);

/** Whether Node finds the package of `specifier` in a node_modules folder above the entry. */
function resolvableFromEntry(specifier) {
  if (specifier.startsWith('node:')) return true;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  for (let d = dirname(abs); ; d = dirname(d)) {
    if (existsSync(join(d, 'node_modules', name))) return true;
    if (dirname(d) === d) return false;
  }
}
// The bundle lives beside the entry so its bare imports resolve from the same node_modules.
const dir = mkdtempSync(join(dirname(abs), '.run-ts-'));
const outfile = join(dir, 'main.mjs');
try {
  await build({
    entryPoints: [abs],
    outfile,
    ...nodeBundle,
    format: 'esm',
    plugins: [
      {
        name: 'external-npm-packages',
        setup(b) {
          // Bundle @netledger/* (TypeScript sources) and relative files; leave npm packages to Node
          // when Node can find them from the entry's folder. A dependency of a workspace package
          // that the entry's package does not list (pnpm does not hoist it) is bundled instead.
          b.onResolve({ filter: /^[^./]/ }, (args) =>
            args.path.startsWith('@netledger/') || !resolvableFromEntry(args.path)
              ? undefined
              : { path: args.path, external: true },
          );
        },
      },
    ],
    logLevel: 'warning',
  });
  process.argv = [process.argv[0], abs, ...args];
  await import(pathToFileURL(outfile).href);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
