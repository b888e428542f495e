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
  const { path, log } = opts;
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  } catch (e) {
    log.warning(`cannot create IPAM lock ${path} (${reason(e)}): continuing without it`);
    return undefined;
  }
  const fs = blockingLockFs;
  const lock = createFileLock({
    fs,
    lockPath: path,
    timeoutMs: opts.timeoutMs,
    holder: await currentLockHolder(fs, randomBytes(4).toString('hex')),
    unreadableRecord: 'stale',
  });
  try {
    await lock.acquire();
  } catch (e) {
    await lock.dispose();
    if (e instanceof FileLockError && e.code === 'Timeout') {
      throw new CniError(CniErrorCode.TryAgainLater, `IPAM lock ${e.message}`);
    }
    log.warning(`failed to take IPAM lock ${path} (${reason(e)}): continuing without it`);
    return undefined;
  }
  return {
    // The prepared file goes after the lock: removing it while holding the lock would wake every
    // waiter (it is the lock file's inode, which they watch) for nothing.
    release: async () => {
      await lock.release().catch((e: unknown) => {
        log.warning(`failed to release IPAM lock ${path} (${reason(e)})`);
      });
      await lock.dispose();
    },
  };
}
