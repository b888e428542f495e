import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const HERE = dirname(fileURLToPath(import.meta.url));

/** Whether Node finds the package of `specifier` in a node_modules folder above this package. */
function resolvableFromHere(specifier: string): boolean {
  if (specifier.startsWith('node:')) return true;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
  for (let d = HERE; ; d = dirname(d)) {
    if (existsSync(join(d, 'node_modules', name))) return true;
    if (dirname(d) === d) return false;
  }
}

/** The host worker bundled once, to start 16 processes without 16 TypeScript builds. */
export interface WorkerBundle {
  /** The ES module to run with `node <file> <plan>`. */
  readonly file: string;
  remove(): Promise<void>;
}

/**
 * Bundles `worker/host-worker.ts` (workspace packages from source, npm packages this package
 * resolves left external) into a temp dir inside this package, so its bare imports resolve from
 * this package's node_modules, as scripts/run-ts.mjs does.
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
          // A dependency of a workspace package that this package does not list (pnpm does not
          // hoist it, e.g. accounting's ip-address) is bundled instead.
          b.onResolve({ filter: /^[^./]/ }, (a) =>
            a.path.startsWith('@netledger/') || !resolvableFromHere(a.path)
              ? undefined
              : { path: a.path, external: true },
          );
        },
      },
    ],
  });
  return { file, remove: () => rm(dir, { recursive: true, force: true }) };
}
