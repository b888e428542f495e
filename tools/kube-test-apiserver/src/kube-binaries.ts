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

/**
 * The binaries of one cache entry, each a file of that name in the entry's directory. From the
 * pinned k8s.io/kubernetes: kube-apiserver; kubectl (the one tests use where the machine has
 * none); kubelet, kube-controller-manager and kube-scheduler (tools/kube-test-cluster). From the
 * nested module `go/crictl`: crictl, the CRI client that kube-test-cluster tears pods down with.
 */
export const KUBE_BINARIES = [
  'kube-apiserver',
  'kubectl',
  'kubelet',
  'kube-controller-manager',
  'kube-scheduler',
  'crictl',
] as const;

/** One of {@link KUBE_BINARIES}. */
type KubeBinaryName = (typeof KUBE_BINARIES)[number];

/** crictl's Go package, built from its own module (`go/crictl`) so it moves no Kubernetes pin. */
const CRICTL_PACKAGE = 'sigs.k8s.io/cri-tools/cmd/crictl';
/** The directory of crictl's module, inside the Kubernetes one. */
const CRICTL_MODULE = 'crictl';

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

// Bumped when the way the binaries are built changes, so old cache entries are not reused.
const RECIPE = `go build -trimpath -ldflags=-s -w +version stamp; ${KUBE_BINARIES.join(' ')}; 3`;

/** The `k8s.io/kubernetes` version that `go.mod` requires, e.g. `v1.32.13`. */
export function pinnedKubernetesVersion(goMod: string): string {
  const match = /^\s*(?:require\s+)?k8s\.io\/kubernetes\s+(v\d+\.\d+\.\d+\S*)\s*(?:\/\/.*)?$/m.exec(
    goMod,
  );
  if (!match) throw new Error('go.mod does not require k8s.io/kubernetes');
  return match[1]!;
}

/**
 * The cache entry for a pin: a hash of the pinning files' texts (go.mod and go.sum of both
 * modules) and of how the binaries are built.
 */
export function cacheKey(pins: readonly string[]): string {
  const hash = createHash('sha256');
  for (const text of pins) hash.update(text).update('\0');
  return hash.update(RECIPE).digest('hex').slice(0, 16);
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

/** Options for {@link resolveKubeApiserver} and {@link resolveKubeBinaries}. */
export interface ResolveOptions {
  readonly env: NodeJS.ProcessEnv;
  readonly home: string;
  /** Build them when they are not cached (default true); false fails with NOT_BUILT instead. */
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

/** Every binary of the pin, in one cache entry. */
export interface ResolvedKubeBinaries {
  /** The cache entry's directory; each binary is the file of its name in it. */
  readonly dir: string;
  readonly paths: Readonly<Record<KubeBinaryName, string>>;
  readonly source: Exclude<BinarySource, 'KUBE_APISERVER'>;
  /** The pinned k8s.io/kubernetes version, e.g. `v1.32.13`. */
  readonly version: string;
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
 * The kube-apiserver to run: `$KUBE_APISERVER` when set (it must be executable), else the one
 * of {@link resolveKubeBinaries}. Throws BAD_BINARY, NOT_BUILT (with `build: false`),
 * NO_GO_TOOLCHAIN or BUILD_FAILED, each with a message saying what to do.
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
  const binaries = await resolveKubeBinaries(options);
  return {
    path: binaries.paths['kube-apiserver'],
    source: binaries.source,
    version: binaries.version,
  };
}

/**
 * Every binary of {@link KUBE_BINARIES}, from the cache entry of the pinned go.mod/go.sum files,
 * built with the machine's Go when the entry is incomplete (one build makes them all). Throws
 * NOT_BUILT (with `build: false`), NO_GO_TOOLCHAIN or BUILD_FAILED, each with a message saying
 * what to do. A failed build leaves no binary in the cache.
 */
export async function resolveKubeBinaries(options: ResolveOptions): Promise<ResolvedKubeBinaries> {
  const moduleDir = options.goModuleDir ?? findGoModuleDir();
  const pinFiles = [
    join(moduleDir, 'go.mod'),
    join(moduleDir, 'go.sum'),
    join(moduleDir, CRICTL_MODULE, 'go.mod'),
    join(moduleDir, CRICTL_MODULE, 'go.sum'),
  ];
  const pins = pinFiles.map((file) => readFileSync(file, 'utf8'));
  const version = pinnedKubernetesVersion(pins[0]!);
  const dir = join(cacheRoot(options.env, options.home), cacheKey(pins));
  const paths = Object.fromEntries(KUBE_BINARIES.map((name) => [name, join(dir, name)])) as Record<
    KubeBinaryName,
    string
  >;
  const complete = (): boolean => KUBE_BINARIES.every((name) => isExecutable(paths[name]));
  if (complete()) return { dir, paths, source: 'cache', version };
  if (options.build === false) {
    // Say at once whether a build could work, rather than only that it was not done.
    findGo(options.env);
    throw new KubeTestApiserverError(
      'NOT_BUILT',
      `kube-apiserver ${version} is not built yet (expected at ${paths['kube-apiserver']}). ` +
        'Build it once with `bin/kube-test-apiserver --build` (several minutes; `npm test` does ' +
        'it before the tests), or set KUBE_APISERVER=/path/to/kube-apiserver.',
    );
  }
  const go = findGo(options.env);
  await mkdir(dir, { recursive: true });
  await withBuildLock(dir, options, async () => {
    if (complete()) return; // another process built them while we waited
    await buildBinaries({ go, moduleDir, version, dir, ...options });
  });
  return { dir, paths, source: 'built', version };
}

interface BuildArgs {
  readonly signal?: AbortSignal;
  readonly go: GoToolchain;
  readonly moduleDir: string;
  readonly version: string;
  readonly dir: string;
  readonly env: NodeJS.ProcessEnv;
  readonly log: (line: string) => void;
}

/** One `go build` of some main packages of one module into `out`. */
interface GoBuild {
  readonly moduleDir: string;
  readonly packages: readonly string[];
  readonly ldflags: string;
}

/** The go builds that make {@link KUBE_BINARIES}: the Kubernetes commands, then crictl. */
function goBuilds(moduleDir: string, version: string): GoBuild[] {
  const kubernetes = KUBE_BINARIES.filter((name) => name !== 'crictl');
  return [
    {
      moduleDir,
      packages: kubernetes.map((name) => `k8s.io/kubernetes/cmd/${name}`),
      ldflags: buildLdflags(version),
    },
    { moduleDir: join(moduleDir, CRICTL_MODULE), packages: [CRICTL_PACKAGE], ldflags: '-s -w' },
  ];
}

/** Runs one go build; resolves with its exit status and its output's lines. */
async function runGoBuild(
  a: BuildArgs,
  build: GoBuild,
  out: string,
): Promise<{ status: number; output: string[] }> {
  const args = [
    'build',
    '-trimpath',
    '-buildvcs=false',
    `-ldflags=${build.ldflags}`,
    '-o',
    `${out}/`,
    ...build.packages,
  ];
  a.log(`$ (cd ${build.moduleDir} && ${a.go.path} ${args.join(' ')})`);
  const output: string[] = [];
  const status = await new Promise<number>((resolve) => {
    const child = spawn(a.go.path, args, {
      cwd: build.moduleDir,
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
  return { status, output };
}

async function buildBinaries(a: BuildArgs): Promise<void> {
  const out = join(a.dir, `build.${process.pid}.tmp`);
  await mkdir(out, { recursive: true });
  a.log(
    `building ${KUBE_BINARIES.join(', ')} (Kubernetes ${a.version}) with ${a.go.version} ` +
      '(several minutes, once)',
  );
  const started = Date.now();
  const seconds = (): number => Math.round((Date.now() - started) / 1000);
  for (const build of goBuilds(a.moduleDir, a.version)) {
    const { status, output } = await runGoBuild(a, build, out);
    if (status !== 0) {
      await rm(out, { recursive: true, force: true });
      a.signal?.throwIfAborted();
      throw new KubeTestApiserverError(
        'BUILD_FAILED',
        `go build ${build.packages.join(' ')} failed (exit ${status}) after ${seconds()} s:\n` +
          output.slice(-30).join('\n'),
      );
    }
  }
  const probe = spawnSync(join(out, 'kube-apiserver'), ['--version'], { encoding: 'utf8' });
  if (!probe.stdout?.includes(a.version)) {
    await rm(out, { recursive: true, force: true });
    throw new KubeTestApiserverError(
      'BUILD_FAILED',
      `the built kube-apiserver reports "${probe.stdout?.trim()}", not ${a.version}`,
    );
  }
  // kube-apiserver last: a cache entry is complete once every binary is in it.
  for (const name of [...KUBE_BINARIES.filter((n) => n !== 'kube-apiserver'), 'kube-apiserver']) {
    await rename(join(out, name), join(a.dir, name));
  }
  await rm(out, { recursive: true, force: true });
  const info = {
    kubernetes: a.version,
    go: a.go.version,
    binaries: KUBE_BINARIES,
    buildSeconds: seconds(),
    builtAt: new Date().toISOString(),
  };
  await writeFile(join(a.dir, 'build.json'), `${JSON.stringify(info, null, 2)}\n`);
  a.log(`built ${KUBE_BINARIES.join(', ')} into ${a.dir} in ${seconds()} s`);
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
