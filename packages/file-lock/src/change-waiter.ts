import { watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';

/** Wakes a lock waiter when the lock file's name changes in its directory. */
export interface ChangeWaiter {
  /** Forgets earlier changes: call before each try, so a change after the try is not missed. */
  arm(): void;
  /** Resolves at the first change since `arm`, at once if there was one, or after `ms`. */
  wait(ms: number): Promise<void>;
  close(): void;
}

/**
 * Watches `path`'s directory (inotify) for changes of `path`'s own name: the directory may hold
 * busy files (a datastore). Undefined where the file system cannot be watched; a watch that fails
 * later stops waking, and `wait` falls back to its timeout.
 */
export function watchLockName(path: string): ChangeWaiter | undefined {
  const name = basename(path);
  let changed = false;
  let wake: (() => void) | undefined;
  let watcher: FSWatcher;
  try {
    watcher = watch(dirname(path), { persistent: false }, (_event, file) => {
      if (file !== null && file !== name) return;
      changed = true;
      wake?.();
    });
  } catch {
    return undefined;
  }
  watcher.on('error', () => watcher.close());
  return {
    arm: () => {
      changed = false;
    },
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
