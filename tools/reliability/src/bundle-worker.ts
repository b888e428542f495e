import { mkdtemp, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const HERE = dirname(fileURLToPath(import.meta.url));

/** The host worker bundled once, to start 16 processes without 16 TypeScript builds. */
export interface WorkerBundle {
  /** The ES module to run with `node <file> <plan>`. */
  readonly file: string;
  remove(): Promise<void>;
}

/**
 * Bundles `worker/host-worker.ts` (workspace packages from source, npm packages left external)
 * into a temp dir inside this package, so its bare imports resolve from this package's
 * node_modules, as scripts/run-ts.mjs does.
 */
export async function bundleWorker(): Promise<WorkerBundle> {
  const dir = await mkdtemp(join(HERE, '..', '.worker-'));
  const file = join(dir, 'host-worker.mjs');
  await build({
    entryPoints: [join(HERE, 'worker', 'host-worker.ts')],
    outfile: file,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    conditions: ['source'],
    logLevel: 'warning',
    plugins: [
      {
        name: 'external-npm-packages',
        setup(b) {
          b.onResolve({ filter: /^[^./]/ }, (a) =>
            a.path.startsWith('@netledger/') ? undefined : { path: a.path, external: true },
          );
        },
      },
    ],
  });
  return { file, remove: () => rm(dir, { recursive: true, force: true }) };
}
