import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  FileLockError,
  blockingLockFs,
  createFileLock,
  currentLockHolder,
} from '@netledger/file-lock';
import { CniError, CniErrorCode } from './cni-error.js';
import type { FileLock } from '@netledger/file-lock';
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

const reason = (e: unknown): string => {
  const cause = e instanceof FileLockError ? e.cause : e;
  return (cause as NodeJS.ErrnoException | undefined)?.code ?? String(cause);
};

/**
 * Takes the host-wide IPAM lock, which serialises ADD, DEL and GC on one host (CAS still
 * protects across hosts): `@netledger/file-lock`'s link(2) lock, whose holder record is read and
 * whose dead holders are recovered as the file store's own lock is. A lock file that is not a
 * holder record is broken, since `ipam_lock_file` may name a file another tool left (calico-ipam's
 * flock file). Best effort like calico-ipam's: when the lock cannot be taken at all (read-only or
 * unwritable location), it logs and returns `undefined`, and the caller proceeds unlocked; a
 * release that fails is logged, not thrown. Waiting longer than `timeoutMs` for a live holder
 * fails `TryAgainLater` (11) naming the holder's pid. Its file calls are synchronous: it runs in a
 * one-shot process with nothing else to do meanwhile, and a thread-pool round trip per call would
 * cost more than the call.
 */
export async function acquireHostLock(opts: HostLockOptions): Promise<HostLock | undefined> {
  if (!prepareDirectory(opts)) return undefined;
  const fs = blockingLockFs;
  const lock = createFileLock({
    fs,
    lockPath: opts.path,
    timeoutMs: opts.timeoutMs,
    holder: await currentLockHolder(fs, randomBytes(4).toString('hex')),
    unreadableRecord: 'stale',
  });
  // The prepared file goes after the lock: removing it while holding the lock would wake every
  // waiter (it is the lock file's inode, which they watch) for nothing.
  return takeHostLock(lock, opts, () => lock.dispose());
}

/** Creates the lock's directory; false (logged) when it cannot be, the caller then goes unlocked. */
function prepareDirectory({ path, log }: HostLockOptions): boolean {
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    return true;
  } catch (e) {
    log.warning(`cannot create IPAM lock ${path} (${reason(e)}): continuing without it`);
    return false;
  }
}

/** Acquires `lock` as {@link acquireHostLock} does; `after` runs after a failure or a release. */
async function takeHostLock(
  lock: FileLock,
  { path, log, timeoutMs }: HostLockOptions,
  after: () => Promise<void>,
): Promise<HostLock | undefined> {
  try {
    await lock.acquire({ timeoutMs });
  } catch (e) {
    await after();
    if (e instanceof FileLockError && e.code === 'Timeout') {
      throw new CniError(CniErrorCode.TryAgainLater, `IPAM lock ${e.message}`);
    }
    log.warning(`failed to take IPAM lock ${path} (${reason(e)}): continuing without it`);
    return undefined;
  }
  return {
    release: async () => {
      await lock.release().catch((e: unknown) => {
        log.warning(`failed to release IPAM lock ${path} (${reason(e)})`);
      });
      await after();
    },
  };
}

/** {@link acquireHostLock} for a long-lived process, and what it leaves to clean up. */
export interface ReusedHostLock {
  /** Takes the lock at `options.path`; one request at a time per path (the caller queues them). */
  readonly acquire: (options: HostLockOptions) => Promise<HostLock | undefined>;
  /** Removes the prepared files; call once no request will take the lock again. */
  readonly dispose: () => Promise<void>;
}

/**
 * The host lock of {@link acquireHostLock} for a long-lived process serving one request at a time
 * per lock path (the node agent queues its own): the same lock, holder record and rules (a live
 * holder waited for, a dead one broken, `TryAgainLater` after `timeoutMs`), but its holder record
 * is read and its prepared file written once per path rather than once per request, so taking and
 * releasing the lock costs a link(2) and an unlink(2). Waiters in other processes see the same
 * holder take the lock again, as for the file store's lock, and back off 1 to 4 ms before trying.
 */
export function reusedHostLock(): ReusedHostLock {
  const fs = blockingLockFs;
  const locks = new Map<string, Promise<FileLock>>();
  const lockAt = (opts: HostLockOptions): Promise<FileLock> => {
    let lock = locks.get(opts.path);
    if (!lock) {
      lock = currentLockHolder(fs, randomBytes(4).toString('hex')).then((holder) =>
        createFileLock({
          fs,
          lockPath: opts.path,
          timeoutMs: opts.timeoutMs,
          holder,
          unreadableRecord: 'stale',
        }),
      );
      locks.set(opts.path, lock);
    }
    return lock;
  };
  return {
    async acquire(opts) {
      if (!prepareDirectory(opts)) return undefined;
      return takeHostLock(await lockAt(opts), opts, async () => undefined);
    },
    async dispose() {
      const all = [...locks.values()];
      locks.clear();
      for (const lock of all) await (await lock).dispose();
    },
  };
}
