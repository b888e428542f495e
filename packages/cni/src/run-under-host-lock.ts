import type { CniCommand } from './cni-request.js';
import type { Logger } from './logger.js';
import type { NetConf } from './net-conf.js';
import { DEFAULT_LOCK_TIMEOUT_MS, DEFAULT_TIMEOUT_MS } from './plugin-deps.js';
import type { PluginDeps } from './plugin-deps.js';
import { withTimeout } from './with-timeout.js';

/** What {@link runUnderHostLock} needs to know of the request. */
export interface LockedWork {
  readonly command: CniCommand;
  readonly conf: NetConf;
  readonly log: Logger;
}

/**
 * Runs `work` for one request: loads the datastore's code first (`deps.preloadDatastore`, outside
 * the lock), takes the host lock for ADD, DEL and GC (so one process at a time touches the store
 * on this host; opening the file store takes its lock too), then runs `work` within the timeout
 * (counted from when the lock is held; on expiry, code 11 and the work is abandoned). The lock is
 * released however `work` ends; its errors propagate.
 */
export async function runUnderHostLock<T>(
  { command, conf, log }: LockedWork,
  deps: PluginDeps,
  work: () => Promise<T>,
): Promise<T> {
  const locked = command === 'ADD' || command === 'DEL' || command === 'GC';
  await deps.preloadDatastore?.(conf.ipam.datastore);
  const waitStart = Date.now();
  const lock = locked
    ? await deps.acquireLock({
        path: conf.ipam.lockFile,
        timeoutMs: deps.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS,
        log,
      })
    : undefined;
  if (locked) log.debug(`host lock ${conf.ipam.lockFile} taken after ${Date.now() - waitStart} ms`);
  const workStart = Date.now();
  try {
    const result = await withTimeout(deps.timeoutMs ?? DEFAULT_TIMEOUT_MS, command, work);
    log.debug(`${command} done in ${Date.now() - workStart} ms after the lock`);
    return result;
  } finally {
    await lock?.release();
  }
}
