import type { Stats } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { basename, dirname, join } from 'node:path';
import { watchLockFile } from './change-waiter.js';
import { FileLockError, lockIoError } from './file-lock-error.js';
import type { OnFileWarning } from './file-warning.js';
import { safeWarner } from './file-warning.js';
import type { LockFs } from './lock-fs.js';
import { errnoOf } from './lock-fs.js';
import type { HolderStatus, LockHolder } from './lock-holder.js';
import { formatLockHolder, judgeHolder, parseLockHolder } from './lock-holder.js';
import { preparedFilePid } from './prepared-file.js';
import { probeProcess } from './process-probe.js';

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

/** How often a waiter reads who holds the lock (and whether it died), and its backstop poll. */
const HOLDER_CHECK_MS = 50;
/** The longest backoff after the release of a holder that comes back (jittered). */
const MAX_BACKOFF_MS = 4;
/** How many released lock files an instance remembers. */
const REMEMBERED_FILES = 16;

/** A file's identity: device, inode, and birth time, which tells a reused inode number apart. */
const fileIdentity = (s: Stats): string => `${s.dev}:${s.ino}:${s.birthtimeMs}`;

/** Adds `item` to a set that keeps the latest `REMEMBERED_FILES`. */
function remember(set: Set<string>, item: string): void {
  set.add(item);
  if (set.size > REMEMBERED_FILES) set.delete(set.values().next().value!);
}

interface SeenLock {
  readonly text: string;
  readonly holder: LockHolder | undefined;
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
  const { fs, lockPath, holder: self } = options;
  const breakPath = `${lockPath}.break`;
  const ownPath = `${lockPath}-${self.pid}-${self.nonce}`;
  const ownText = formatLockHolder(self);
  let prepared = false;
  const warn = safeWarner(options.onWarning);
  /** The lock files (holders' prepared files) this instance saw released, the latest ones. */
  const released = new Set<string>();

  const judge = async (h: LockHolder): Promise<HolderStatus> =>
    judgeHolder(h, self.pidNamespace, await probeProcess(fs, h.pid));
  const isStale = async (seen: SeenLock): Promise<boolean> =>
    seen.holder ? (await judge(seen.holder)) === 'dead' : options.unreadableRecord === 'stale';

  const readLock = async (path: string): Promise<SeenLock | undefined> => {
    try {
      const text = await fs.readText(path);
      return { text, holder: parseLockHolder(text) };
    } catch (e) {
      if (errnoOf(e) === 'ENOENT') return undefined;
      throw lockIoError(lockPath, `reading lock ${path}`, e);
    }
  };

  const tryLink = async (target: string): Promise<boolean> => {
    for (let attempt = 0; ; attempt++) {
      try {
        if (!prepared) {
          await fs.writeText(ownPath, ownText, { flag: 'w', mode: 0o600 });
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
        throw lockIoError(lockPath, `creating lock ${target}`, e);
      }
    }
  };

  const removeIfSame = async (path: string, text: string): Promise<void> => {
    const now = await readLock(path);
    if (now?.text !== text) return;
    await fs.unlink(path).catch((e: unknown) => {
      if (errnoOf(e) !== 'ENOENT') throw lockIoError(lockPath, `removing ${path}`, e);
    });
  };

  /** A `catch` for a cleanup of `path`: its failure is a warning, unless the file is gone. */
  const unlessGone =
    (message: string, path: string) =>
    (cause: unknown): undefined => {
      if (errnoOf(cause) !== 'ENOENT') warn({ message, path, cause });
      return undefined;
    };

  const sweep = async (): Promise<void> => {
    const dir = dirname(lockPath);
    const base = basename(lockPath);
    const names =
      (await fs
        .readdir(dir)
        .catch(unlessGone("could not list dead processes' prepared files in", dir))) ?? [];
    for (const name of names) {
      const pid = preparedFilePid(base, name);
      // Never probe ourselves: our own prepared files are in use.
      if (pid === undefined || pid === self.pid) continue;
      const full = join(dir, name);
      const text = await fs
        .readText(full)
        .catch(unlessGone('could not check, so left in place, the prepared file', full));
      if (text === undefined) continue;
      const recorded = parseLockHolder(text) ?? { pid, nonce: '' };
      if ((await judge(recorded)) === 'dead') {
        await fs
          .unlink(full)
          .catch(unlessGone("could not remove the dead process's prepared file", full));
      }
    }
  };

  /** Breaks a stale lock, then sweeps what its dead holder (or others) may have left. */
  const breakStale = async (stale: SeenLock): Promise<void> => {
    if (!(await tryLink(breakPath))) {
      // Someone else is breaking it. Its breaker is stale only if that process died in between.
      const breaker = await readLock(breakPath);
      if (breaker?.holder && (await judge(breaker.holder)) === 'dead') {
        await removeIfSame(breakPath, breaker.text);
      }
      return;
    }
    try {
      await removeIfSame(lockPath, stale.text);
    } finally {
      // Left behind, it keeps others from breaking a stale lock until this process exits.
      await fs.unlink(breakPath).catch(unlessGone('could not remove the lock breaker', breakPath));
    }
    await sweep();
  };

  /** The error for a wait that timed out; undefined if the lock was released meanwhile. */
  const timeoutError = async (timeoutMs: number): Promise<FileLockError | undefined> => {
    const seen = await readLock(lockPath);
    if (!seen) return undefined;
    const since = await fs.stat(lockPath).then(
      (s) => ` (locked since ${s.ctime.toISOString()})`,
      () => '',
    );
    const h = seen.holder;
    const foreign = h?.pidNamespace && h.pidNamespace !== self.pidNamespace;
    const who = h
      ? `pid ${h.pid}${foreign ? ` in pid namespace ${h.pidNamespace}` : ''}`
      : 'an unreadable holder record';
    return new FileLockError(
      'Timeout',
      `${lockPath} is held by ${who}; gave up after ${timeoutMs} ms${since}`,
      { lockPath },
    );
  };

  const acquire = async (call: { readonly timeoutMs?: number } = {}): Promise<void> => {
    const timeoutMs = call.timeoutMs ?? options.timeoutMs;
    const deadline = Date.now() + timeoutMs;
    let checkedAt = -Infinity;
    let backoff = 1;
    for (;;) {
      if (await tryLink(lockPath)) return;
      // Who holds the lock, and whether it died, is read on the first failure and then at most
      // every HOLDER_CHECK_MS: a wake-up only retries the link.
      if (Date.now() - checkedAt >= HOLDER_CHECK_MS) {
        checkedAt = Date.now();
        const seen = await readLock(lockPath);
        if (!seen) continue; // released between link and read
        if (await isStale(seen)) {
          await breakStale(seen);
          continue;
        }
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        const error = await timeoutError(timeoutMs);
        if (error) throw error;
        continue; // released just now: one last try
      }
      // Watch the holder's lock file, then try again (a release in between is not missed), then
      // sleep until it changes or the backstop.
      const waiter = watchLockFile(lockPath);
      if (!waiter) continue; // released meanwhile
      let woken: boolean;
      let holderFile: string | undefined;
      try {
        if (await tryLink(lockPath)) return;
        // No identity (released meanwhile, or unreadable): only the backoff bookkeeping is skipped.
        holderFile = await fs.stat(lockPath).then(fileIdentity, () => undefined);
        woken = await waiter.wait(Math.min(HOLDER_CHECK_MS, left));
      } finally {
        waiter.close();
      }
      if (!woken || holderFile === undefined) continue;
      // A holder whose lock file we saw released before is a process writing in a loop, which
      // takes the lock again at once: back off (1 ms doubling to 4 ms, jittered) before trying, as
      // a poll would, so it mostly keeps the lock rather than every release handing it over,
      // which costs more than a write and turns the next writer's read stale (a CAS conflict).
      // Waiters for one-shot holders (CNI plugins) try at once.
      if (released.has(holderFile)) {
        await sleep(backoff * (0.5 + Math.random()));
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      } else {
        remember(released, holderFile);
        backoff = 1;
      }
    }
  };

  return {
    acquire,
    async release() {
      try {
        await fs.unlink(lockPath);
      } catch (e) {
        if (errnoOf(e) !== 'ENOENT') throw lockIoError(lockPath, `releasing lock ${lockPath}`, e);
      }
    },
    async dispose() {
      prepared = false;
      // Left behind, it is swept by the next instance once this process has exited.
      await fs.unlink(ownPath).catch(unlessGone('could not remove the prepared file', ownPath));
    },
    sweep,
  };
}
