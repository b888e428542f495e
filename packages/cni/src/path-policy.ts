import { lstatSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, posix } from 'node:path';
import { CniError, CniErrorCode } from './cni-error.js';
import type { Env } from './cni-request.js';
import type { IpamConf } from './net-conf.js';

// The plugin runs as root and creates files where its config says: the store (and its lock,
// temp and .prev files beside it) and the host lock. A config naming /etc/cron.d/x, a path with
// `..`, or a path through a symlink planted in a shared directory would have root create files
// anywhere. So both paths must lie under an allowed root, as written and as resolved on disk.

/**
 * Where the store and the host lock may live unless `NETLEDGER_PATH_ROOTS` says otherwise: the
 * system locations, and the temp directory (ad-hoc runs and tests; narrow it out with
 * `ipam.path_roots` in production).
 */
const DEFAULT_PATH_ROOTS: readonly string[] = ['/var/lib/netledger', '/run/netledger', '/tmp'];

/** The variable a runtime (not a netconf author) sets to replace the default roots. */
const ROOTS_VARIABLE = 'NETLEDGER_PATH_ROOTS';

const invalid = (msg: string): CniError => new CniError(CniErrorCode.InvalidNetworkConfig, msg);

/** Absolute, and written in its one normal form: no `..`, `.`, `//` or trailing `/`. */
const isNormalAbsolute = (p: string): boolean =>
  isAbsolute(p) && posix.normalize(p) === p && (p === '/' || !p.endsWith('/'));

const within = (path: string, root: string): boolean =>
  root === '/' ? path.startsWith('/') : path === root || path.startsWith(`${root}/`);

function baseRoots(env: Env): readonly string[] {
  const text = env[ROOTS_VARIABLE];
  if (text === undefined || text === '') return DEFAULT_PATH_ROOTS;
  const roots = text.split(':').filter((r) => r !== '');
  const bad = roots.find((r) => !isNormalAbsolute(r));
  if (bad !== undefined) {
    throw new CniError(
      CniErrorCode.InvalidEnvironmentVariables,
      `${ROOTS_VARIABLE}: ${JSON.stringify(bad)} is not an absolute normalized directory`,
    );
  }
  return roots;
}

/** `ipam.path_roots` narrows the roots: each must lie under one of them. */
function narrowedRoots(stdin: string, base: readonly string[]): readonly string[] {
  const ipam = (JSON.parse(stdin) as { ipam?: { path_roots?: unknown } }).ipam;
  const listed = ipam?.path_roots;
  if (listed === undefined || listed === null) return base;
  if (!Array.isArray(listed) || listed.some((r) => typeof r !== 'string')) {
    throw new CniError(
      CniErrorCode.DecodingFailure,
      'failed to load netconf: path_roots must be a list of directories',
    );
  }
  for (const r of listed as string[]) {
    if (!isNormalAbsolute(r)) {
      throw invalid(`path_roots: ${JSON.stringify(r)} is not an absolute normalized directory`);
    }
    if (!base.some((b) => within(r, b))) {
      throw invalid(
        `path_roots: ${JSON.stringify(r)} is not under an allowed root (${base.join(', ')})`,
      );
    }
  }
  return listed as string[];
}

const errno = (e: unknown): string | undefined => (e as NodeJS.ErrnoException).code;

/**
 * `path` as the file system resolves it: the real path of its deepest existing ancestor with the
 * rest appended. A dangling symlink on the way (which a create would follow) is refused.
 *
 * Blocking calls on purpose: resolving a few path components is microseconds of work, done again
 * on every request so that a symlink swapped in since the last one is caught (a cache would need
 * the same lstat per component to stay safe). On the thread pool each call cost about twice as
 * much CPU, in dispatch and a promise, and the node agent runs this on every request.
 */
function resolveOnDisk(path: string, key: string): string {
  let rest = '';
  let at = path;
  for (;;) {
    try {
      return join(realpathSync(at), rest);
    } catch (e) {
      if (errno(e) !== 'ENOENT' && errno(e) !== 'ENOTDIR') throw invalid(`${key}: ${String(e)}`);
    }
    let link;
    try {
      link = lstatSync(at, { throwIfNoEntry: false });
    } catch {
      link = undefined;
    }
    if (link?.isSymbolicLink()) {
      throw invalid(`${key} ${JSON.stringify(path)}: ${at} is a symlink to nowhere`);
    }
    if (at === '/') return path;
    rest = rest === '' ? basename(at) : join(basename(at), rest);
    at = dirname(at);
  }
}

/** The allowed roots, and each one as resolved on disk (once per request). */
interface RootPolicy {
  readonly roots: readonly string[];
  readonly resolveRoot: (root: string) => string;
}

/** Checks one configured path against the roots: as written, then as resolved on disk. */
function checkPath(key: string, path: string, policy: RootPolicy): void {
  const { roots, resolveRoot } = policy;
  const allowed = `allowed roots: ${roots.join(', ')}; see ipam.path_roots and ${ROOTS_VARIABLE}`;
  if (!isNormalAbsolute(path)) {
    throw invalid(`${key} ${JSON.stringify(path)} is not an absolute normalized path (${allowed})`);
  }
  const root = roots.find((r) => within(path, r) && path !== r);
  if (root === undefined) {
    throw invalid(`${key} ${JSON.stringify(path)} is outside the allowed roots (${allowed})`);
  }
  const real = resolveOnDisk(path, key);
  const realRoot = resolveRoot(root);
  if (!within(real, realRoot) || real === realRoot) {
    throw invalid(
      `${key} ${JSON.stringify(path)} resolves to ${real}, outside its root ${root} (a symlink escapes it)`,
    );
  }
}

/** Inputs of {@link enforcePathPolicy}. */
export interface PathPolicyInput {
  /** The parsed IPAM config: its host lock and, for the file store, its configured path. */
  readonly ipam: Pick<IpamConf, 'datastore' | 'lockFile'>;
  /** The netconf text (for `ipam.path_roots`). */
  readonly stdin: string;
  readonly env: Env;
}

/**
 * Refuses a host lock path, or a configured file store path, outside the allowed roots:
 * `NETLEDGER_PATH_ROOTS` (colon-separated, set by the runtime) or the defaults
 * (`/var/lib/netledger`, `/run/netledger`, `/tmp`), narrowed by `ipam.path_roots` (each under
 * one of those). A path must be absolute and normalized (no `..`), strictly under a root, and
 * still under it once symlinks are resolved; a dangling symlink on the way is refused. Throws
 * `InvalidNetworkConfig` (7) naming the key, `DecodingFailure` (6) for a `path_roots` that is not
 * a list of strings, `InvalidEnvironmentVariables` (4) for a bad `NETLEDGER_PATH_ROOTS`. The
 * default store path (none configured) is the system one for root and is not checked.
 */
export async function enforcePathPolicy(input: PathPolicyInput): Promise<void> {
  const roots = narrowedRoots(input.stdin, baseRoots(input.env));
  // Both paths usually share a root: resolve each root once per request.
  const resolvedRoots = new Map<string, string>();
  const resolveRoot = (root: string): string => {
    let real = resolvedRoots.get(root);
    if (real === undefined) {
      real = resolveOnDisk(root, 'path root');
      resolvedRoots.set(root, real);
    }
    return real;
  };
  checkPath('ipam_lock_file', input.ipam.lockFile, { roots, resolveRoot });
  const store = input.ipam.datastore;
  if (store.type === 'file' && store.path !== undefined) {
    checkPath('datastore_path', store.path, { roots, resolveRoot });
  }
}
