// Waiting for the lock: link, else judge the holder (breaking a dead one's lock), else sleep until
// the lock file changes, backing off before trying when the holder is one that comes back.
import type { Stats } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { breakStaleLock } from './break-stale-lock.js';
import { watchLockFile } from './change-waiter.js';
import { FileLockError } from './file-lock-error.js';
import type { LockFiles, SeenLock } from './lock-files.js';
import { createReholdBackoff } from './rehold-backoff.js';

/** How often a waiter reads who holds the lock (and whether it died), and its backstop poll. */
const HOLDER_CHECK_MS = 50;
/** How many released lock files an instance remembers. */
const REMEMBERED_FILES = 16;

/** A file's identity: device, inode, and birth time, which tells a reused inode number apart. */
const fileIdentity = (s: Stats): string => `${s.dev}:${s.ino}:${s.birthtimeMs}`;

/** Adds `item` to a set that keeps the latest `REMEMBERED_FILES`. */
function remember(set: Set<string>, item: string): void {
  set.add(item);
  if (set.size > REMEMBERED_FILES) set.delete(set.values().next().value!);
}

/** The error for a wait that timed out; undefined if the lock was released meanwhile. */
async function timeoutError(
  files: LockFiles,
  timeoutMs: number,
): Promise<FileLockError | undefined> {
  const { fs, lockPath, self } = files;
  const seen = await files.readLock(lockPath);
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
}

/**
 * Watches the holder's lock file, tries once more (a release in between is not missed), then
 * sleeps until it changes or `waitMs`. Resolves `acquired`, or the identity of the holder's file
 * when woken by a change (undefined: released meanwhile, unreadable, or not woken).
 */
async function waitForChange(
  files: LockFiles,
  waitMs: number,
): Promise<'acquired' | { woken: string | undefined }> {
  const waiter = watchLockFile(files.lockPath);
  if (!waiter) return { woken: undefined }; // released meanwhile
  try {
    if (await files.tryLink(files.lockPath)) return 'acquired';
    // No identity (released meanwhile, or unreadable): only the backoff bookkeeping is skipped.
    const holderFile = await files.fs.stat(files.lockPath).then(fileIdentity, () => undefined);
    const woken = await waiter.wait(waitMs);
    return { woken: woken ? holderFile : undefined };
  } finally {
    waiter.close();
  }
}

/**
 * Takes the lock within `timeoutMs`: `Timeout` naming the holder's pid after it, `Io` on a file
 * error. Who holds the lock, and whether it died, is read on the first failure and then at most
 * every 50 ms (also the backstop poll): a wake-up only retries the link.
 */
export async function acquireLock(
  files: LockFiles,
  o: {
    readonly timeoutMs: number;
    readonly isStale: (seen: SeenLock) => Promise<boolean>;
    /** The lock files (holders' prepared files) this instance saw released, the latest ones. */
    readonly released: Set<string>;
  },
): Promise<void> {
  const { lockPath } = files;
  const { released } = o;
  const backoff = createReholdBackoff();
  const deadline = Date.now() + o.timeoutMs;
  let checkedAt = -Infinity;
  for (;;) {
    if (await files.tryLink(lockPath)) return;
    if (Date.now() - checkedAt >= HOLDER_CHECK_MS) {
      checkedAt = Date.now();
      const seen = await files.readLock(lockPath);
      if (!seen) continue; // released between link and read
      if (await o.isStale(seen)) {
        await breakStaleLock(files, seen);
        continue;
      }
    }
    const left = deadline - Date.now();
    if (left <= 0) {
      const error = await timeoutError(files, o.timeoutMs);
      if (error) throw error;
      continue; // released just now: one last try
    }
    const waited = await waitForChange(files, Math.min(HOLDER_CHECK_MS, left));
    if (waited === 'acquired') return;
    if (waited.woken === undefined) continue;
    // A holder whose lock file we saw released before is a process writing in a loop, which
    // takes the lock again at once: back off (1 ms doubling to 4 ms, jittered) before trying, as
    // a poll would, so it mostly keeps the lock rather than every release handing it over,
    // which costs more than a write and turns the next writer's read stale (a CAS conflict).
    // Waiters for one-shot holders (CNI plugins) try at once.
    if (released.has(waited.woken)) {
      await sleep(backoff.next());
    } else {
      remember(released, waited.woken);
      backoff.reset();
    }
  }
}
