import { randomBytes } from 'node:crypto';
import {
  linkSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  unlinkSync,
  watch,
  writeFileSync,
} from 'node:fs';
import type { FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import { CniError, CniErrorCode } from './cni-error.js';
import type { Logger } from './logger.js';

/** A held host lock. */
export interface HostLock {
  release(): Promise<void>;
}

/** Options of {@link acquireHostLock}. */
export interface HostLockOptions {
  /** The lock file (`ipam_lock_file`). */
  readonly path: string;
  /** How long to wait for a live holder before `TryAgainLater` (11). */
  readonly timeoutMs: number;
  readonly log: Logger;
}

interface Holder {
  readonly pid: number;
  readonly start: string;
  readonly pidns: string;
}

/** How often a waiter reads who holds the lock (and whether it died), and its backstop poll. */
const HOLDER_CHECK_MS = 50;

const errno = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | undefined)?.code;

/** Field 22 of /proc/<pid>/stat (start time in clock ticks): tells a reused pid apart. */
function startTime(pid: number | 'self'): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function pidNamespace(): string {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return '';
  }
}

const parseHolder = (text: string): Holder | undefined => {
  const [pid, start, pidns] = text.trim().split(' ');
  const n = Number(pid);
  return Number.isSafeInteger(n) && n > 0 && start
    ? { pid: n, start, pidns: pidns ?? '' }
    : undefined;
};

/** Dead when the pid is gone or was reused; a holder in another pid namespace is presumed alive. */
function isDead(holder: Holder, ownPidns: string): boolean {
  if (holder.pidns !== ownPidns) return false;
  const start = startTime(holder.pid);
  return start === undefined || start !== holder.start;
}

const readText = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    if (errno(e) === 'ENOENT') return undefined;
    throw e;
  }
};

const unlinkQuietly = (path: string): void => {
  try {
    unlinkSync(path);
  } catch {
    // Already gone, or not ours to remove: either way nothing to do.
  }
};

/**
 * Takes the host-wide IPAM lock, which serialises ADD, DEL and GC on one host (CAS still
 * protects across hosts). The lock file is created by `link(2)` from a private file holding
 * `<pid> <start time> <pid namespace>`, so it never appears half-written; a holder that died
 * (pid gone or reused) is broken under `<path>.break`. Best effort like calico-ipam's: when the
 * lock cannot be created at all (read-only or unwritable location), it logs and returns
 * `undefined`, and the caller proceeds unlocked. Waiting longer than `timeoutMs` for a live holder
 * fails `TryAgainLater` (11) naming the holder's pid. Its file calls are synchronous: it runs in a
 * one-shot process with nothing else to do meanwhile, and a thread-pool round trip per call would
 * cost more than the call (a waiter retries on every change of the lock).
 */
export async function acquireHostLock(opts: HostLockOptions): Promise<HostLock | undefined> {
  const { path } = opts;
  const pidns = pidNamespace();
  const text = `${process.pid} ${startTime('self') ?? '0'} ${pidns}\n`;
  const own = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(own, text, { mode: 0o644 });
  } catch (e) {
    opts.log.warning(
      `cannot create IPAM lock ${path} (${errno(e) ?? String(e)}): continuing without it`,
    );
    return undefined;
  }
  const tryLink = (target: string): boolean => {
    try {
      linkSync(own, target);
      return true;
    } catch (e) {
      if (errno(e) === 'EEXIST') return false;
      throw e;
    }
  };
  const removeIfSame = (target: string, seen: string): void => {
    if (readText(target) === seen) unlinkQuietly(target);
  };
  const breakStale = (seen: string): void => {
    if (!tryLink(`${path}.break`)) {
      const breaker = readText(`${path}.break`);
      const h = breaker === undefined ? undefined : parseHolder(breaker);
      if (breaker !== undefined && h && isDead(h, pidns)) removeIfSame(`${path}.break`, breaker);
      return;
    }
    try {
      removeIfSame(path, seen);
    } finally {
      unlinkQuietly(`${path}.break`);
    }
  };

  // Waiters sleep until the lock's directory changes (inotify) instead of polling hard: on a
  // busy host, polling waiters steal the CPU the holder needs to finish. A slow poll remains as
  // a backstop for missed events and for holders that die.
  let wake: (() => void) | undefined;
  let watcher: FSWatcher | undefined;
  let watchTried = false;
  const waitForChange = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      }
      wake = done;
    });
  const deadline = Date.now() + opts.timeoutMs;
  // Every release wakes every waiter, so a wake-up only retries the link; who holds the lock (and
  // whether it died) is read on the first failure and then at most every HOLDER_CHECK_MS.
  let holder: Holder | undefined;
  let checkedAt = -Infinity;
  try {
    for (;;) {
      if (tryLink(path)) break;
      if (Date.now() - checkedAt >= HOLDER_CHECK_MS) {
        checkedAt = Date.now();
        const seen = readText(path);
        if (seen === undefined) continue;
        holder = parseHolder(seen);
        if (!holder || isDead(holder, pidns)) {
          breakStale(seen);
          continue;
        }
      }
      if (Date.now() >= deadline) {
        throw new CniError(
          CniErrorCode.TryAgainLater,
          `IPAM lock ${path} is held by pid ${holder?.pid ?? '?'}; gave up after ${opts.timeoutMs} ms`,
        );
      }
      if (!watchTried) {
        // Watch first, then try again: a release between our try and the watch is not missed.
        watchTried = true;
        try {
          const name = basename(path);
          watcher = watch(dirname(path), (_event, file) => {
            // Only the lock's own name: the directory may hold busy files (a datastore).
            if (file === null || file === name) wake?.();
          });
        } catch {
          // No inotify: the backstop poll alone, faster.
        }
        continue;
      }
      await waitForChange(watcher ? HOLDER_CHECK_MS : 5);
    }
  } catch (e) {
    watcher?.close();
    unlinkQuietly(own);
    if (e instanceof CniError) throw e;
    opts.log.warning(
      `failed to take IPAM lock ${path} (${errno(e) ?? String(e)}): continuing without it`,
    );
    return undefined;
  }
  watcher?.close();
  unlinkQuietly(own);
  return {
    release: async () => {
      removeIfSame(path, text);
    },
  };
}
