// The cross-process lock's entry: its options and contract; the pieces are lock-files.ts (the
// files and their reads and links), acquire-lock.ts (waiting), break-stale-lock.ts (recovery).
import { acquireLock } from './acquire-lock.js';
import { sweepPreparedFiles } from './break-stale-lock.js';
import { lockIoError } from './file-lock-error.js';
import type { OnFileWarning } from './file-warning.js';
import type { SeenLock } from './lock-files.js';
import { createLockFiles } from './lock-files.js';
import type { LockFs } from './lock-fs.js';
import { errnoOf } from './lock-fs.js';
import type { LockHolder } from './lock-holder.js';

/** Options for {@link createFileLock}. */
export interface FileLockOptions {
  readonly fs: LockFs;
  /** The lock file; a stale one is broken under `<lockPath>.break`. */
  readonly lockPath: string;
  /** How long `acquire` waits for a live holder before failing `Timeout`. */
  readonly timeoutMs: number;
  /** Who we are (see `currentLockHolder`); written into the lock file. */
  readonly holder: LockHolder;
  /**
   * A lock file that is not a holder record: `live` (default) waits for it and times out, for a
   * lock path only this package writes (a newer format must never be broken); `stale` breaks it,
   * for a configurable path where another tool may have left a file (calico-ipam's flock file).
   */
  readonly unreadableRecord?: 'live' | 'stale';
  /**
   * Told of a cleanup that failed without failing the call (a breaker or a prepared file that
   * could not be removed); a file already gone is no failure. Default: nothing is told.
   */
  readonly onWarning?: OnFileWarning;
}

/** A cross-process mutex on one host. Not reentrant: callers serialize within the process. */
export interface FileLock {
  /**
   * Waits for the lock: `Timeout` naming the holder's pid after `timeoutMs` (the options', or
   * this call's), `Io` on a file error.
   */
  acquire(options?: { readonly timeoutMs?: number }): Promise<void>;
  /** Removes the lock taken by `acquire` (a live holder's lock is never broken by others). */
  release(): Promise<void>;
  /** Removes this instance's prepared file; call when no more `acquire` will come. */
  dispose(): Promise<void>;
  /**
   * Removes the prepared files of dead processes next to the lock, this process's excepted,
   * judging a file without a record (its process died creating it) by the pid in its name.
   * Best effort: a file that cannot be read or removed is a warning, and is skipped.
   */
  sweep(): Promise<void>;
}

/**
 * A lock file taken with `link(2)`: the instance writes its holder record (pid, process start
 * time, pid namespace, nonce) once to a private file `<lockPath>-<pid>-<nonce>`, then hard-links
 * it to `lockPath`, which fails `EEXIST` while someone holds the lock; the lock file therefore
 * never appears empty or half-written. A lock whose holder is dead (pid gone, zombie, or reused)
 * is stale; it is removed only by whoever holds `<lockPath>.break`, after re-reading that it is
 * still the same stale file, so two processes never both break a lock and remove a fresh one.
 * Waiters sleep until the holder's lock file changes (inotify on it) rather than polling hard,
 * since on a busy host polling waiters steal the CPU the holder needs; woken by the release of a
 * holder that comes back (a process writing in a loop: the same prepared file, released before),
 * they back off 1 to 4 ms before trying, so that process keeps a busy lock instead of handing it
 * over at every release. Who holds it is read at the first failure and then every 50 ms, which is
 * also the backstop poll.
 */
export function createFileLock(options: FileLockOptions): FileLock {
  const files = createLockFiles(options);
  /** The lock files (holders' prepared files) this instance saw released, the latest ones. */
  const released = new Set<string>();
  const isStale = async (seen: SeenLock): Promise<boolean> =>
    seen.holder
      ? (await files.judge(seen.holder)) === 'dead'
      : options.unreadableRecord === 'stale';
  const { fs, lockPath, ownPath } = files;

  return {
    acquire: (call = {}) =>
      acquireLock(files, { timeoutMs: call.timeoutMs ?? options.timeoutMs, isStale, released }),
    async release() {
      try {
        await fs.unlink(lockPath);
      } catch (e) {
        if (errnoOf(e) !== 'ENOENT') throw lockIoError(lockPath, `releasing lock ${lockPath}`, e);
      }
    },
    async dispose() {
      files.forgetPrepared();
      // Left behind, it is swept by the next instance once this process has exited.
      await fs
        .unlink(ownPath)
        .catch(files.unlessGone('could not remove the prepared file', ownPath));
    },
    sweep: () => sweepPreparedFiles(files),
  };
}
