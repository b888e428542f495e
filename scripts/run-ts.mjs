#!/usr/bin/env node
// Runs a TypeScript entry point of this workspace with plain Node: bundles it (workspace packages
// from source, npm dependencies left external) into a temp file next to it, then imports it.
// Usage: node scripts/run-ts.mjs <file.ts> [args...]
import { build } from 'esbuild';
import { nodeBundle } from './esbuild-node.mjs';
import { mkdtempSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [entry, ...args] = process.argv.slice(2);
if (!entry) {
  console.error('usage: run-ts.mjs <file.ts> [args...]');
  process.exit(2);
}
const abs = resolve(entry);
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
          // Bundle @netledger/* (TypeScript sources) and relative files; leave npm packages to Node.
          b.onResolve({ filter: /^[^./]/ }, (args) =>
            args.path.startsWith('@netledger/') ? undefined : { path: args.path, external: true },
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
