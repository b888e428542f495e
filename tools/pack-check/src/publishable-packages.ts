// The workspace's publishable packages: every workspace package not marked private.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A package.json as far as packing cares. */
export interface PackageManifest {
  readonly name: string;
  readonly version: string;
  readonly private?: boolean;
  readonly type?: string;
  readonly license?: string;
  readonly exports?: Readonly<Record<string, unknown>>;
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly peerDependencies?: Readonly<Record<string, string>>;
  readonly optionalDependencies?: Readonly<Record<string, string>>;
}

/** One publishable package: its folder and its manifest. */
export interface PublishablePackage {
  readonly dir: string;
  readonly manifest: PackageManifest;
}

const WORKSPACE_FOLDERS = ['packages', 'apps', 'tools'];

/**
 * The non-private packages under `packages/`, `apps/` and `tools/` of the workspace at `root`,
 * sorted by name. Throws if a package.json cannot be read or parsed.
 */
export function listPublishablePackages(root: string): PublishablePackage[] {
  const found: PublishablePackage[] = [];
  for (const folder of WORKSPACE_FOLDERS) {
    const parent = join(root, folder);
    if (!existsSync(parent)) continue;
    for (const entry of readdirSync(parent)) {
      const manifestPath = join(parent, entry, 'package.json');
      if (!existsSync(manifestPath)) continue;
      const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as PackageManifest;
      if (manifest.private !== true) found.push({ dir: join(parent, entry), manifest });
    }
  }
  return found.sort((a, b) => a.manifest.name.localeCompare(b.manifest.name));
}

/** The file name `pnpm pack` and `npm pack` give a package's tarball. */
export function tarballName(manifest: PackageManifest): string {
  return `${manifest.name.replace(/^@/, '').replace('/', '-')}-${manifest.version}.tgz`;
}
