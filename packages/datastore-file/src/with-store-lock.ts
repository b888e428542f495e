// The store's cross-process lock around a task, with lock failures as the store reports them.
import { FileLockError } from '@netledger/file-lock';
import type { FileLock, OnFileWarning } from '@netledger/file-lock';
import { IpamError } from '@netledger/ipam-core';
import { toUnavailable } from './fs-errors.js';

/** A lock failure as the store reports it: `Unavailable`, its message starting with the path. */
function lockFailure(path: string, e: unknown): unknown {
  if (!(e instanceof FileLockError)) return e;
  if (e.code === 'Timeout') {
    return new IpamError('Unavailable', `${path}: datastore lock ${e.message}`, {
      identifier: e.lockPath,
    });
  }
  return toUnavailable(path, e.doing ?? 'locking', e.cause);
}

/** The store's lock, its path, and where a failed cleanup is told. */
export interface LockedStore {
  readonly lock: FileLock;
  readonly path: string;
  readonly warn: OnFileWarning;
}

/**
 * Runs `task` holding the store's lock; lock failures are the store's `Unavailable`. When `task`
 * fails, its error is thrown and a lock that cannot be released then is a warning (other processes
 * wait for it until this one exits, then break it as stale).
 */
export async function withStoreLock<T>(
  { lock, path, warn }: LockedStore,
  task: () => Promise<T>,
): Promise<T> {
  await lock.acquire().catch((e: unknown) => {
    throw lockFailure(path, e);
  });
  let result: T;
  try {
    result = await task();
  } catch (e) {
    await lock
      .release()
      .catch((cause: unknown) =>
        warn({ message: 'could not release the datastore lock', path: `${path}.lock`, cause }),
      );
    throw e;
  }
  await lock.release().catch((e: unknown) => {
    throw lockFailure(path, e);
  });
  return result;
}
