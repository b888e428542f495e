// A project outside the workspace that installs packed tarballs with npm, compiles TypeScript
// against their published types, and runs the result with plain Node.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Options for {@link createScratchProject}. */
export interface ScratchProjectOptions {
  /** An empty directory outside the workspace. */
  readonly dir: string;
  /** Tarball paths to install (with npm: each becomes a `file:` dependency). */
  readonly tarballs: readonly string[];
  /** Registry packages to install beside them, e.g. `@types/node@20.19.43`. */
  readonly registryPackages: readonly string[];
  /** TypeScript sources by file name; compiled to `out/<name>.js`. */
  readonly sources: Readonly<Record<string, string>>;
}

/** A scratch project ready to run its compiled sources. */
export interface ScratchProject {
  /** Runs `out/<file>.js` with Node and resolves with its stdout; rejects with its stderr. */
  runCompiled(file: string, args?: readonly string[]): Promise<string>;
}

// npm must see neither the workspace's pnpm settings nor its lifecycle variables.
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(npm|pnpm)_/i.test(k)));
}

// Strict, as a careful consumer compiles; skipLibCheck off so the published .d.ts are checked too.
const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    lib: ['ES2023'],
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noUncheckedIndexedAccess: true,
    skipLibCheck: false,
    types: ['node'],
    outDir: 'out',
    rootDir: '.',
  },
};

async function step(what: string, work: Promise<unknown>): Promise<void> {
  try {
    await work;
  } catch (e) {
    const err = e as Error & { stdout?: string; stderr?: string };
    throw new Error(`${what} failed:\n${err.stdout ?? ''}${err.stderr ?? err.message}`, {
      cause: e,
    });
  }
}

/**
 * Writes a package.json, a strict tsconfig and the sources into `dir`, installs the tarballs and
 * registry packages with `npm install` (install scripts off, npm's cache preferred), and compiles
 * the sources with the workspace's TypeScript. Throws on the first failing step with its output.
 */
export async function createScratchProject(
  options: ScratchProjectOptions,
): Promise<ScratchProject> {
  const { dir } = options;
  const env = cleanEnv();
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: 'netledger-consumer', private: true, type: 'module' }, null, 2)}\n`,
  );
  const files = Object.keys(options.sources);
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ ...TSCONFIG, files }, null, 2));
  for (const [file, text] of Object.entries(options.sources)) writeFileSync(join(dir, file), text);
  await step(
    'npm install',
    run(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        '--prefer-offline',
        '--loglevel=error',
        ...options.tarballs,
        ...options.registryPackages,
      ],
      { cwd: dir, env, maxBuffer: 16 << 20 },
    ),
  );
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  await step('tsc', run(process.execPath, [tsc, '-p', dir], { cwd: dir, env }));
  return {
    async runCompiled(file, args = []) {
      const js = join(dir, 'out', file.replace(/\.ts$/, '.js'));
      try {
        const { stdout } = await run(process.execPath, [js, ...args], { cwd: dir, env });
        return stdout;
      } catch (e) {
        const err = e as Error & { stderr?: string };
        throw new Error(`node ${file} failed: ${err.stderr || err.message}`, { cause: e });
      }
    },
  };
}
