import { setTimeout as sleep } from 'node:timers/promises';
import { IpamError } from '@netledger/ipam-core';
import { errnoOf, toUnavailable } from './fs-errors.js';
import type { HolderStatus, LockHolder } from './lock-holder.js';
import { formatLockHolder, parseLockHolder } from './lock-holder.js';
import type { StoreFs } from './store-fs.js';

/** Options for {@link createFileLock}. */
export interface FileLockOptions {
  readonly fs: StoreFs;
  /** The lock file, e.g. `<store>.lock`; a stale one is broken under `<lockPath>.break`. */
  readonly lockPath: string;
  /** The store path, named in errors. */
  readonly storePath: string;
  /** How long `acquire` waits for a live holder before failing `Unavailable`. */
  readonly timeoutMs: number;
  /** Who we are; written into the lock file. */
  readonly holder: LockHolder;
  /** Whether the holder named in a lock file is still running. */
  readonly judge: (holder: LockHolder) => Promise<HolderStatus>;
}

/** A cross-process mutex on one host. Not reentrant: callers serialize within the process. */
export interface FileLock {
  /** Waits for the lock; `Unavailable` naming the holder's pid after `timeoutMs`. */
  acquire(): Promise<void>;
  /** Releases the lock taken by `acquire`. */
  release(): Promise<void>;
  /** Removes this instance's prepared lock file; call once, when done with the lock. */
  dispose(): Promise<void>;
}

/** Longest sleep between two tries while the lock is held; short, as holders keep it ~1 ms. */
const MAX_POLL_MS = 4;

interface SeenLock {
  readonly text: string;
  readonly holder: LockHolder | undefined;
}

const readLock = async (fs: StoreFs, path: string): Promise<SeenLock | undefined> => {
  try {
    const text = await fs.readText(path);
    return { text, holder: parseLockHolder(text) };
  } catch (e) {
    if (errnoOf(e) === 'ENOENT') return undefined;
    throw e;
  }
};

/**
 * A lock file taken with `link(2)`: each instance writes its holder record (pid, process start
 * time, pid namespace, nonce) once to a private file, then hard-links it to `lockPath`, which
 * fails `EEXIST` while someone holds the lock. The lock file therefore never appears empty or
 * half-written. A lock whose holder is dead (pid gone, zombie, or reused) is stale; it is removed
 * only by whoever holds `<lockPath>.break`, after re-reading that it is still the same stale file,
 * so two processes never both break a lock and remove a fresh one.
 */
export function createFileLock(options: FileLockOptions): FileLock {
  const { fs, lockPath, storePath } = options;
  const breakPath = `${lockPath}.break`;
  const ownPath = `${lockPath}-${options.holder.pid}-${options.holder.nonce}`;
  const ownText = formatLockHolder(options.holder);
  let prepared = false;

  const tryLink = async (target: string): Promise<boolean> => {
    for (let attempt = 0; ; attempt++) {
      try {
        if (!prepared) {
          await fs.writeText(ownPath, ownText, { flag: 'w', mode: 0o644 });
          prepared = true;
        }
        await fs.link(ownPath, target);
        return true;
      } catch (e) {
        const code = errnoOf(e);
        if (code === 'EEXIST') return false;
        // Our prepared file was swept away as garbage: write it again, once.
        if (code === 'ENOENT' && prepared && attempt === 0) {
          prepared = false;
          continue;
        }
        throw toUnavailable(storePath, `creating lock ${target}`, e);
      }
    }
  };

  const removeIfSame = async (path: string, text: string): Promise<void> => {
    const now = await readLock(fs, path);
    if (now?.text !== text) return;
    await fs.unlink(path).catch((e: unknown) => {
      if (errnoOf(e) !== 'ENOENT') throw e;
    });
  };

  const breakStale = async (stale: SeenLock): Promise<void> => {
    if (!(await tryLink(breakPath))) {
      // Someone else is breaking it. Its breaker is stale only if that process died in between.
      const breaker = await readLock(fs, breakPath);
      if (breaker?.holder && (await options.judge(breaker.holder)) === 'dead') {
        await removeIfSame(breakPath, breaker.text);
      }
      return;
    }
    try {
      await removeIfSame(lockPath, stale.text);
    } finally {
      await fs.unlink(breakPath).catch(() => undefined);
    }
  };

  const timeout = async (seen: SeenLock): Promise<IpamError> => {
    const since = await fs.stat(lockPath).then(
      (s) => ` since ${s.ctime.toISOString()}`,
      () => '',
    );
    const who = seen.holder
      ? `pid ${seen.holder.pid}${seen.holder.pidNamespace ? ` (${seen.holder.pidNamespace})` : ''}`
      : 'an unreadable holder record';
    return new IpamError(
      'Unavailable',
      `${storePath}: datastore lock ${lockPath} is held by ${who}${since}; gave up after ${options.timeoutMs} ms`,
      { identifier: lockPath },
    );
  };

  return {
    async acquire() {
      const deadline = Date.now() + options.timeoutMs;
      let delay = 1;
      for (;;) {
        if (await tryLink(lockPath)) return;
        let seen: SeenLock | undefined;
        try {
          seen = await readLock(fs, lockPath);
          if (!seen) continue; // released between link and read
          if (seen.holder && (await options.judge(seen.holder)) === 'dead') {
            await breakStale(seen);
            continue;
          }
        } catch (e) {
          throw toUnavailable(storePath, `reading lock ${lockPath}`, e);
        }
        if (Date.now() >= deadline) throw await timeout(seen);
        // Jitter keeps contending processes from waking in lockstep.
        await sleep(delay * (0.5 + Math.random()));
        delay = Math.min(delay * 2, MAX_POLL_MS);
      }
    },
    async release() {
      try {
        await fs.unlink(lockPath);
      } catch (e) {
        throw toUnavailable(storePath, `releasing lock ${lockPath}`, e);
      }
    },
    async dispose() {
      prepared = false;
      await fs.unlink(ownPath).catch(() => undefined);
    },
  };
}
