import { watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** How often a waiter polls where the lock file cannot be watched. */
const UNWATCHED_POLL_MS = 5;

/** Wakes a lock waiter when the lock file it saw changes. */
export interface ChangeWaiter {
  /**
   * Resolves `true` at the first change since the watch began (at once if there was one), or
   * `false` after `ms`.
   */
  wait(ms: number): Promise<boolean>;
  close(): void;
}

/**
 * Watches the file at `path` now, that is the current holder's lock (inotify on its inode): its
 * release unlinks it, which changes the inode's link count. Watching the file rather than its
 * directory spares a waiter the directory's other traffic (a datastore's writes) and the other
 * waiters' comings and goings. Undefined when there is no file to watch (released meanwhile: try
 * again). Where it cannot be watched, `wait` polls every 5 ms; a watch that fails later stops
 * waking, and `wait` falls back to its timeout.
 */
export function watchLockFile(path: string): ChangeWaiter | undefined {
  let changed = false;
  let wake: ((changed: boolean) => void) | undefined;
  let watcher: FSWatcher;
  try {
    watcher = watch(path, { persistent: false }, () => {
      changed = true;
      wake?.(true);
    });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    // Cannot be watched (no inotify, out of watches): a poll.
    return {
      wait: (ms) => sleep(Math.min(ms, UNWATCHED_POLL_MS)).then(() => false),
      close: () => undefined,
    };
  }
  watcher.on('error', () => watcher.close());
  return {
    wait: (ms) =>
      new Promise((resolve) => {
        if (changed) return resolve(true);
        const done = (woken: boolean): void => {
          clearTimeout(timer);
          wake = undefined;
          resolve(woken);
        };
        const timer = setTimeout(() => done(false), ms);
        wake = done;
      }),
    close: () => watcher.close(),
  };
}
