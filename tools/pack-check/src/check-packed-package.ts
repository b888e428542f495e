// What a packed package must carry to be usable from another repository: pure checks over the
// unpacked tarball's manifest, file list, README and LICENSE.
import type { PackageManifest } from './publishable-packages.js';

/** An unpacked tarball, as {@link checkPackedPackage} reads it. */
export interface PackedPackage {
  /** The package.json inside the tarball (as pnpm rewrote it). */
  readonly manifest: PackageManifest;
  /** Every file in the tarball, relative to its `package/` folder, with `/` separators. */
  readonly files: readonly string[];
  /** README.md's text, undefined when the tarball has none. */
  readonly readme: string | undefined;
  /** LICENSE's text, undefined when the tarball has none. */
  readonly license: string | undefined;
}

/** What the package must agree with: the project's license. */
export interface PackExpectations {
  /** The SPDX id every package declares (the root package.json's `license`). */
  readonly licenseId: string;
  /** The root LICENSE file's text, which every tarball's LICENSE must equal. */
  readonly licenseText: string;
}

// The workspace-only condition: it points at TypeScript sources, which are not shipped.
const WORKSPACE_CONDITIONS = new Set(['source']);
const RUNTIME_CONDITIONS = ['default', 'import', 'node'];
const DEPENDENCY_FIELDS = ['dependencies', 'peerDependencies', 'optionalDependencies'] as const;

function exportProblems(manifest: PackageManifest, files: ReadonlySet<string>): string[] {
  const exportsMap = manifest.exports;
  if (exportsMap === undefined || !('.' in exportsMap)) return ['no exports map with a "." entry'];
  const problems: string[] = [];
  for (const [subpath, target] of Object.entries(exportsMap)) {
    if (typeof target !== 'object' || target === null || Array.isArray(target)) {
      problems.push(`exports["${subpath}"] is not a conditions object with types`);
      continue;
    }
    const conditions = target as Record<string, unknown>;
    const types = conditions['types'];
    if (typeof types !== 'string' || !types.endsWith('.d.ts')) {
      problems.push(`exports["${subpath}"] has no "types" condition naming a .d.ts file`);
    }
    if (!RUNTIME_CONDITIONS.some((c) => typeof conditions[c] === 'string')) {
      problems.push(
        `exports["${subpath}"] has no runtime condition (${RUNTIME_CONDITIONS.join(', ')})`,
      );
    }
    for (const [condition, path] of Object.entries(conditions)) {
      if (WORKSPACE_CONDITIONS.has(condition) || typeof path !== 'string') continue;
      if (!files.has(path.replace(/^\.\//, ''))) {
        problems.push(
          `exports["${subpath}"].${condition} names ${path}, which is not in the tarball`,
        );
      }
    }
  }
  return problems;
}

function hasExample(readme: string, name: string): boolean {
  const blocks = readme.match(/```(?:ts|typescript|js|javascript)\n[\s\S]*?```/g) ?? [];
  return blocks.some(
    (b) => b.includes(`'${name}'`) || b.includes(`"${name}"`) || b.includes(`'${name}/`),
  );
}

/**
 * The problems of one unpacked tarball, each a sentence naming the package's defect: exports map
 * (every entry with a `.d.ts` types condition and a runtime condition, every target shipped),
 * README with a TypeScript or JavaScript example importing the package, LICENSE equal to the
 * project's and the same SPDX id in the manifest, ESM, no `workspace:` range left, no test files
 * shipped. Empty when the package is fit to publish.
 */
export function checkPackedPackage(packed: PackedPackage, expect: PackExpectations): string[] {
  const { manifest } = packed;
  const files = new Set(packed.files);
  const problems = exportProblems(manifest, files);
  if (manifest.type !== 'module') problems.push('package.json "type" is not "module"');
  if (packed.readme === undefined) problems.push('no README.md');
  else if (!hasExample(packed.readme, manifest.name)) {
    problems.push(`README.md has no ts/js example importing ${manifest.name}`);
  }
  if (manifest.license !== expect.licenseId) {
    problems.push(
      `package.json license is ${manifest.license ?? 'missing'}, not ${expect.licenseId}`,
    );
  }
  if (packed.license === undefined) problems.push('no LICENSE file');
  else if (packed.license !== expect.licenseText)
    problems.push('LICENSE differs from the root LICENSE');
  for (const field of DEPENDENCY_FIELDS) {
    for (const [dep, range] of Object.entries(manifest[field] ?? {})) {
      if (range.startsWith('workspace:')) problems.push(`${field}.${dep} is still ${range}`);
    }
  }
  const tests = packed.files.filter((f) =>
    /\.(test|int\.test)\.[cm]?[jt]s$|(^|\/)test-[^/]*$/.test(f),
  );
  if (tests.length > 0) problems.push(`ships test files: ${tests.slice(0, 3).join(', ')}`);
  return problems;
}
