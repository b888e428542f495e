import type { OnFileWarning } from '@netledger/file-lock';
import { IpamError } from '@netledger/ipam-core';
import { SortedKeys } from '@netledger/ipam-core/adapter';
import type { FileStamp, LoadedStore } from './store-file.js';
import type { StoreFileHandle, StoreFs } from './store-fs.js';
import { REPAIR_HINT, loadStoreFile, sameStamp, statStamp } from './store-file.js';
import type { StoreSnapshot } from './store-snapshot.js';

/** Options for {@link createSnapshotCache}. */
export interface SnapshotCacheOptions {
  readonly fs: StoreFs;
  readonly path: string;
  /** The store as read (or created) when opening. */
  readonly initial: LoadedStore;
  /** Called after the cached snapshot changes, in order, before any caller sees the new one. */
  readonly onChange: (previous: StoreSnapshot, next: StoreSnapshot) => void;
  /** Told of a superseded file's handle that failed to close. */
  readonly warn: OnFileWarning;
}

/** This process's view of the store file, re-read only when the file has changed. */
export interface SnapshotCache {
  /** The snapshot as last seen, without looking at the file. */
  current(): StoreSnapshot;
  /**
   * The snapshot as of now: one `stat`, and a re-read only when the file changed. Concurrent
   * calls share one read. Never goes back to an older revision than one already seen.
   */
  refresh(): Promise<StoreSnapshot>;
  /**
   * Like `refresh`, but for a caller holding the lock: never joins a read started before the lock
   * was taken, and takes whatever is on disk as the truth (even an older or replaced store).
   */
  refreshLocked(): Promise<StoreSnapshot>;
  /** Installs a snapshot this process has just written. */
  replace(written: LoadedStore): void;
  /** Paths of the current snapshot in key order (built once per key set). */
  index(): SortedKeys;
  /** Closes the held file handle. */
  close(): Promise<void>;
}

function sameKeys(a: StoreSnapshot, b: StoreSnapshot): boolean {
  if (a.entries.size !== b.entries.size) return false;
  for (const path of b.entries.keys()) if (!a.entries.has(path)) return false;
  return true;
}

/** Whether `next` is another store or a later revision of the same one than `prev`. */
const isNewer = (prev: StoreSnapshot, next: StoreSnapshot): boolean =>
  next.storeId !== prev.storeId || next.revision > prev.revision;

/** Creates a {@link SnapshotCache} over a loaded store file. */
export function createSnapshotCache(options: SnapshotCacheOptions): SnapshotCache {
  const { fs, path } = options;
  let held: LoadedStore = options.initial;
  let sorted: SortedKeys | undefined;
  let reading: Promise<StoreSnapshot> | undefined;
  /**
   * Closes the handle of a file no longer held, in the background: nothing waits for it, and a
   * failure (the descriptor leaks until exit) is a warning.
   */
  const release = (dropped: StoreFileHandle): void => {
    void dropped
      .close()
      .catch((cause: unknown) =>
        options.warn({ message: 'could not close a superseded handle of', path, cause }),
      );
  };

  const install = (next: LoadedStore, force: boolean): void => {
    const prev = held;
    if (!force && !isNewer(prev.snapshot, next.snapshot)) {
      // Same or older than what we have (a read that raced our own write): keep ours.
      if (next.snapshot.revision === prev.snapshot.revision && next.handle !== prev.handle) {
        held = { snapshot: prev.snapshot, handle: next.handle, stamp: next.stamp };
        release(prev.handle);
      } else if (next.handle !== prev.handle) {
        release(next.handle);
      }
      return;
    }
    held = next;
    if (next.handle !== prev.handle) release(prev.handle);
    if (next.snapshot !== prev.snapshot) {
      if (!sameKeys(prev.snapshot, next.snapshot)) sorted = undefined;
      options.onChange(prev.snapshot, next.snapshot);
    }
  };

  const read = async (force: boolean): Promise<StoreSnapshot> => {
    const stamp: FileStamp | undefined = await statStamp(fs, path);
    if (!stamp) {
      throw new IpamError(
        'Unavailable',
        `${path}: the datastore file was removed; ${REPAIR_HINT} to restore its previous generation`,
        { identifier: path },
      );
    }
    if (sameStamp(stamp, held.stamp)) return held.snapshot;
    install(await loadStoreFile(fs, path, held.snapshot), force);
    return held.snapshot;
  };

  return {
    current: () => held.snapshot,
    refresh() {
      reading ??= read(false).finally(() => {
        reading = undefined;
      });
      return reading;
    },
    refreshLocked: () => read(true),
    replace: (written) => install(written, true),
    index() {
      if (!sorted) {
        sorted = new SortedKeys();
        // Adding in order appends each key, so building the index is n log n.
        for (const p of [...held.snapshot.entries.keys()].sort()) sorted.add(p);
      }
      return sorted;
    },
    async close() {
      await held.handle
        .close()
        .catch((cause: unknown) =>
          options.warn({ message: 'could not close the store file handle of', path, cause }),
        );
    },
  };
}
