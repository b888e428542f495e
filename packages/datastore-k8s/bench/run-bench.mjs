// Bundles bench/k8s-bench.ts (workspace packages from their TypeScript source) and runs it. The
// bundle sits two levels under the repository root, as testkit's startKubeApiserver expects of
// its own file when it finds tools/kube-test-apiserver from it; the directory is removed after.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const dir = `${root}.bench-bundle`;
try {
  await build({
    entryPoints: [`${root}bench/k8s-bench.ts`],
    outfile: `${dir}/k8s-bench.mjs`,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['source'],
    external: ['@kubernetes/client-node', 'vitest', 'esbuild'],
    logLevel: 'warning',
  });
  const run = spawnSync(process.execPath, [`${dir}/k8s-bench.mjs`, ...process.argv.slice(2)], {
    stdio: 'inherit',
  });
  process.exitCode = run.status ?? 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
