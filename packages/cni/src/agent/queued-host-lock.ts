import { CniError, CniErrorCode } from '../cni-error.js';
import type { HostLock, HostLockOptions } from '../host-lock.js';

/** Takes the host lock (`acquireHostLock`'s signature). */
export type AcquireHostLock = (options: HostLockOptions) => Promise<HostLock | undefined>;

/**
 * `acquire` with the agent's own requests queued in memory, first come first served, per lock
 * path: only the request at the head of the queue waits on the file lock, so a burst of requests
 * does not become a crowd of file-lock waiters in one process, each woken by every release. The
 * file lock still serialises the agent with plugins running in-process. A request waits at most
 * `timeoutMs` in all (queue and file lock) and then fails `TryAgainLater` (11), as the plugin does
 * for a live holder; its place in the queue passes on to the next. When `acquire` cannot lock at
 * all (it returns undefined, the plugin then proceeds unlocked), the next request goes ahead too.
 */
export function queuedHostLock(acquire: AcquireHostLock): AcquireHostLock {
  const tails = new Map<string, Promise<void>>();
  return async (options) => {
    const started = Date.now();
    const previous = tails.get(options.path) ?? Promise.resolve();
    let leave!: () => void;
    const mine = new Promise<void>((resolve) => (leave = resolve));
    const tail = previous.then(() => mine);
    tails.set(options.path, tail);
    const done = (): void => {
      leave();
      if (tails.get(options.path) === tail) tails.delete(options.path);
    };
    let timer: NodeJS.Timeout | undefined;
    const turn = await Promise.race([
      previous.then(() => 'turn' as const),
      new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), options.timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    if (turn === 'timeout') {
      void previous.then(done);
      throw new CniError(
        CniErrorCode.TryAgainLater,
        `IPAM lock ${options.path}: still queued behind this agent's other requests after ${options.timeoutMs} ms`,
      );
    }
    let lock: HostLock | undefined;
    try {
      lock = await acquire({
        ...options,
        timeoutMs: Math.max(1, options.timeoutMs - (Date.now() - started)),
      });
    } catch (e) {
      done();
      throw e;
    }
    if (lock === undefined) {
      done();
      return undefined;
    }
    const held = lock;
    return {
      release: async () => {
        try {
          await held.release();
        } finally {
          done();
        }
      },
    };
  };
}
