// Packs workspace packages with `pnpm pack` (which rewrites `workspace:` ranges) and unpacks the
// tarballs for inspection.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, mkdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import type { PackedPackage } from './check-packed-package.js';
import type { PackageManifest, PublishablePackage } from './publishable-packages.js';
import { tarballName } from './publishable-packages.js';

const run = promisify(execFile);

/** A package packed into a tarball and unpacked beside it. */
export interface PackResult {
  readonly name: string;
  /** The tarball's absolute path. */
  readonly tarball: string;
  /** Its unpacked content, for {@link checkPackedPackage}. */
  readonly packed: PackedPackage;
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split('\\').join('/'))
    .sort();
}

const readIfPresent = (path: string): string | undefined =>
  existsSync(path) ? readFileSync(path, 'utf8') : undefined;

/**
 * Packs `pkg` into `outDir` with `pnpm pack` (pnpm from PATH) and unpacks it into
 * `outDir/<tarball name>.d/`. Throws when the package has not been built (no `dist/`: run
 * `pnpm build` first), when pnpm fails (its stderr in the message), or when the tarball is not
 * where pnpm names it.
 */
export async function packPackage(pkg: PublishablePackage, outDir: string): Promise<PackResult> {
  const { name } = pkg.manifest;
  if (!existsSync(join(pkg.dir, 'dist'))) {
    throw new Error(`${name} has no dist/: run \`pnpm build\` before this test`);
  }
  try {
    await run('pnpm', ['pack', '--pack-destination', outDir], { cwd: pkg.dir });
  } catch (e) {
    const err = e as Error & { stderr?: string };
    throw new Error(`pnpm pack of ${name} failed: ${err.stderr || err.message}`, { cause: e });
  }
  const tarball = join(outDir, tarballName(pkg.manifest));
  if (!existsSync(tarball)) throw new Error(`pnpm pack of ${name} wrote no ${tarball}`);
  const unpacked = `${tarball}.d`;
  mkdirSync(unpacked);
  await run('tar', ['-xzf', tarball, '-C', unpacked]);
  const root = join(unpacked, 'package');
  return {
    name,
    tarball,
    packed: {
      manifest: JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as PackageManifest,
      files: listFiles(root),
      readme: readIfPresent(join(root, 'README.md')),
      license: readIfPresent(join(root, 'LICENSE')),
    },
  };
}
