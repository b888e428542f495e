import { watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';

/** Wakes a lock waiter when the lock file it saw changes. */
export interface ChangeWaiter {
  /** Resolves at the first change since the watch began (at once if there was one), or after `ms`. */
  wait(ms: number): Promise<void>;
  close(): void;
}

/**
 * Watches the file at `path` now, that is the current holder's lock (inotify on its inode): its
 * release unlinks it, which changes the inode's link count. Watching the file rather than its
 * directory spares a waiter the directory's other traffic (a datastore's writes) and the other
 * waiters' comings and goings. Undefined when there is no file to watch (released meanwhile:
 * try again) or it cannot be watched; a watch that fails later stops waking, and `wait` falls back
 * to its timeout.
 */
export function watchLockFile(path: string): ChangeWaiter | undefined {
  let changed = false;
  let wake: (() => void) | undefined;
  let watcher: FSWatcher;
  try {
    watcher = watch(path, { persistent: false }, () => {
      changed = true;
      wake?.();
    });
  } catch {
    return undefined;
  }
  watcher.on('error', () => watcher.close());
  return {
    wait: (ms) =>
      new Promise((resolve) => {
        if (changed) return resolve();
        const done = (): void => {
          clearTimeout(timer);
          wake = undefined;
          resolve();
        };
        const timer = setTimeout(done, ms);
        wake = done;
      }),
    close: () => watcher.close(),
  };
}
