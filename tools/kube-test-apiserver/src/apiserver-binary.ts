import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { findGo } from './go-toolchain.js';
import type { GoToolchain } from './go-toolchain.js';
import { KubeTestApiserverError } from './kube-test-apiserver-error.js';

/** The Go package built from the pinned module. */
const APISERVER_PACKAGE = 'k8s.io/kubernetes/cmd/kube-apiserver';
/** Built beside it from the same pin: the kubectl tests use where the machine has none. */
const KUBECTL_PACKAGE = 'k8s.io/kubernetes/cmd/kubectl';

/**
 * The Go module that pins kube-apiserver: `go/` in this package, found by walking up from this
 * file, which runs from `src/`, from the bundle in `dist/`, or from a bundle run-ts.mjs made.
 */
export function findGoModuleDir(from: string = fileURLToPath(import.meta.url)): string {
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    const candidate = join(dir, 'go');
    if (existsSync(join(candidate, 'go.mod')) && existsSync(join(dir, 'package.json'))) {
      return candidate;
    }
    if (dirname(dir) === dir) throw new Error(`no go/go.mod above ${from}`);
  }
}

// Bumped when the way the binary is built changes, so old cache entries are not reused.
const RECIPE = 'go build -trimpath -ldflags=-s -w +version stamp; kube-apiserver and kubectl; 2';

/** The `k8s.io/kubernetes` version that `go.mod` requires, e.g. `v1.32.13`. */
export function pinnedKubernetesVersion(goMod: string): string {
  const match = /^\s*(?:require\s+)?k8s\.io\/kubernetes\s+(v\d+\.\d+\.\d+\S*)\s*(?:\/\/.*)?$/m.exec(
    goMod,
  );
  if (!match) throw new Error('go.mod does not require k8s.io/kubernetes');
  return match[1]!;
}

/** The cache entry for a pin: a hash of go.mod, go.sum and how the binary is built. */
export function cacheKey(goMod: string, goSum: string): string {
  return createHash('sha256')
    .update(goMod)
    .update('\0')
    .update(goSum)
    .update('\0')
    .update(RECIPE)
    .digest('hex')
    .slice(0, 16);
}

/** `${XDG_CACHE_HOME:-$HOME/.cache}/netledger/kube-apiserver`: outside the checkout. */
export function cacheRoot(env: NodeJS.ProcessEnv, home: string): string {
  return join(env.XDG_CACHE_HOME || join(home, '.cache'), 'netledger', 'kube-apiserver');
}

/**
 * `-ldflags` that strip the symbol table and stamp the version: a binary built as a module
 * dependency otherwise reports `v0.0.0-master+$Format:%H$`, which `kubectl version` cannot parse.
 */
export function buildLdflags(version: string): string {
  const [major, minor] = version.replace(/^v/, '').split('.');
  const stamp = (pkg: string): string[] => [
    `-X ${pkg}.gitVersion=${version}`,
    `-X ${pkg}.gitMajor=${major}`,
    `-X ${pkg}.gitMinor=${minor}`,
    `-X ${pkg}.gitTreeState=clean`,
  ];
  return [
    '-s',
    '-w',
    ...stamp('k8s.io/component-base/version'),
    ...stamp('k8s.io/client-go/pkg/version'),
  ].join(' ');
}

/** Where a kube-apiserver binary came from. */
type BinarySource = 'KUBE_APISERVER' | 'cache' | 'built';

/** Options for {@link resolveKubeApiserver}. */
export interface ResolveOptions {
  readonly env: NodeJS.ProcessEnv;
  readonly home: string;
  /** Build it when it is not cached (default true); false fails with NOT_BUILT instead. */
  readonly build?: boolean;
  /** Progress lines (the build takes minutes). */
  readonly log: (line: string) => void;
  /** The Go module to build (default {@link findGoModuleDir}). */
  readonly goModuleDir?: string;
  /** Aborting stops a build in progress (it throws the abort reason). */
  readonly signal?: AbortSignal;
}

/** A kube-apiserver binary ready to run. */
export interface ResolvedBinary {
  readonly path: string;
  readonly source: BinarySource;
  /** The pinned version, or undefined for a KUBE_APISERVER binary. */
  readonly version?: string;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The kube-apiserver to run: `$KUBE_APISERVER` when set (it must be executable), else the
 * binary cached for the pinned go.mod/go.sum, built with the machine's Go when missing. Throws
 * BAD_BINARY, NOT_BUILT (with `build: false`), NO_GO_TOOLCHAIN or BUILD_FAILED, each with a
 * message saying what to do. A failed build leaves no binary in the cache.
 */
export async function resolveKubeApiserver(options: ResolveOptions): Promise<ResolvedBinary> {
  const override = options.env.KUBE_APISERVER;
  if (override) {
    if (!isExecutable(override)) {
      throw new KubeTestApiserverError(
        'BAD_BINARY',
        `KUBE_APISERVER=${override}: no executable file there`,
      );
    }
    return { path: override, source: 'KUBE_APISERVER' };
  }
  const moduleDir = options.goModuleDir ?? findGoModuleDir();
  const goMod = readFileSync(join(moduleDir, 'go.mod'), 'utf8');
  const goSum = readFileSync(join(moduleDir, 'go.sum'), 'utf8');
  const version = pinnedKubernetesVersion(goMod);
  const dir = join(cacheRoot(options.env, options.home), cacheKey(goMod, goSum));
  const path = join(dir, 'kube-apiserver');
  if (isExecutable(path)) return { path, source: 'cache', version };
  if (options.build === false) {
    // Say at once whether a build could work, rather than only that it was not done.
    findGo(options.env);
    throw new KubeTestApiserverError(
      'NOT_BUILT',
      `kube-apiserver ${version} is not built yet (expected at ${path}). Build it once with ` +
        '`bin/kube-test-apiserver --build` (several minutes; `npm test` does it before the ' +
        'tests), or set KUBE_APISERVER=/path/to/kube-apiserver.',
    );
  }
  const go = findGo(options.env);
  await mkdir(dir, { recursive: true });
  await withBuildLock(dir, options, async () => {
    if (isExecutable(path)) return; // another process built it while we waited
    await buildBinary({ go, moduleDir, version, dir, path, ...options });
  });
  return { path, source: 'built', version };
}

interface BuildArgs {
  readonly signal?: AbortSignal;
  readonly go: GoToolchain;
  readonly moduleDir: string;
  readonly version: string;
  readonly dir: string;
  readonly path: string;
  readonly env: NodeJS.ProcessEnv;
  readonly log: (line: string) => void;
}

async function buildBinary(a: BuildArgs): Promise<void> {
  const out = `${a.path}.${process.pid}.tmp`;
  const tmp = join(out, 'kube-apiserver');
  await mkdir(out, { recursive: true });
  const args = [
    'build',
    '-trimpath',
    '-buildvcs=false',
    `-ldflags=${buildLdflags(a.version)}`,
    '-o',
    `${out}/`,
    APISERVER_PACKAGE,
    KUBECTL_PACKAGE,
  ];
  a.log(
    `building kube-apiserver and kubectl ${a.version} with ${a.go.version} (several minutes, once)`,
  );
  a.log(`$ (cd ${a.moduleDir} && ${a.go.path} ${args.join(' ')})`);
  const started = Date.now();
  const output: string[] = [];
  const status = await new Promise<number>((resolve) => {
    const child = spawn(a.go.path, args, {
      cwd: a.moduleDir,
      // GOTOOLCHAIN=local: never download another toolchain; -mod=readonly: go.sum is the pin.
      env: { ...a.env, GOTOOLCHAIN: 'local', GOFLAGS: '-mod=readonly' },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(a.signal && { signal: a.signal }),
    });
    const collect = (chunk: Buffer): void => {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line === '') continue;
        output.push(line);
        a.log(line);
      }
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.on('error', (e) => {
      output.push(e.message);
      resolve(1);
    });
    child.on('close', (code) => resolve(code ?? 1));
  });
  const seconds = Math.round((Date.now() - started) / 1000);
  if (status !== 0) {
    await rm(out, { recursive: true, force: true });
    a.signal?.throwIfAborted();
    throw new KubeTestApiserverError(
      'BUILD_FAILED',
      `go build ${APISERVER_PACKAGE} failed (exit ${status}) after ${seconds} s:\n` +
        output.slice(-30).join('\n'),
    );
  }
  const probe = spawnSync(tmp, ['--version'], { encoding: 'utf8' });
  if (!probe.stdout?.includes(a.version)) {
    await rm(out, { recursive: true, force: true });
    throw new KubeTestApiserverError(
      'BUILD_FAILED',
      `the built kube-apiserver reports "${probe.stdout?.trim()}", not ${a.version}`,
    );
  }
  // kubectl first: a cache entry is complete once kube-apiserver is in it.
  await rename(join(out, 'kubectl'), join(a.dir, 'kubectl'));
  await rename(tmp, a.path);
  await rm(out, { recursive: true, force: true });
  const info = {
    kubernetes: a.version,
    go: a.go.version,
    buildSeconds: seconds,
    builtAt: new Date().toISOString(),
  };
  await writeFile(join(a.dir, 'build.json'), `${JSON.stringify(info, null, 2)}\n`);
  a.log(`built ${a.path} in ${seconds} s`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Runs `work` holding `<dir>/build.lock` (a directory: mkdir is atomic), so two test runs that
 * start together build once. A lock whose process is gone is taken over.
 */
async function withBuildLock(
  dir: string,
  options: { log: (line: string) => void; signal?: AbortSignal },
  work: () => Promise<void>,
): Promise<void> {
  const lock = join(dir, 'build.lock');
  let announced = false;
  for (;;) {
    try {
      await mkdir(lock);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const owner = Number(await readFile(join(lock, 'pid'), 'utf8').catch(() => 'NaN'));
    const madeAt = (await stat(lock).catch(() => undefined))?.mtimeMs ?? 0;
    // No pid file 10 s after the lock was made: its maker died between mkdir and writing it.
    const orphan = Number.isInteger(owner) ? !isAlive(owner) : Date.now() - madeAt > 10_000;
    if (orphan) {
      await rm(lock, { recursive: true, force: true });
      continue;
    }
    if (!announced) options.log(`waiting for the build by process ${owner} (${lock})`);
    announced = true;
    await sleep(1000, undefined, options.signal && { signal: options.signal });
  }
  try {
    await writeFile(join(lock, 'pid'), String(process.pid));
    await work();
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}
