// Bundles bench/txn-rate.ts (workspace packages from their TypeScript source) and runs it.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const outfile = `${root}node_modules/.cache/bench/txn-rate.mjs`;
await build({
  entryPoints: [`${root}bench/txn-rate.ts`],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  conditions: ['source'],
  external: ['etcd3', 'cockatiel', 'vitest'],
  logLevel: 'warning',
});
const run = spawnSync(process.execPath, [outfile, ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(run.status ?? 1);
