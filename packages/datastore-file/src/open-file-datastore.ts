// The Datastore over an opened store file: reads from the snapshot cache, writes through the
// store mutator, watches fed by every snapshot this process sees.
import { dirname } from 'node:path';
import type { OnFileWarning } from '@netledger/file-lock';
import { IpamError } from '@netledger/ipam-core';
import type { Datastore, DatastoreKey, Kind, KVPair } from '@netledger/ipam-core';
import { doesNotExistError, keyToPath, toMutation } from '@netledger/ipam-core/adapter';
import { createFileWatch } from './file-watch.js';
import { toKvPair } from './history-events.js';
import type { StoreWriter } from './open-for-writing.js';
import { createSerialQueue } from './serial-queue.js';
import { createSnapshotCache } from './snapshot-cache.js';
import { createStoreMutator, transactWrites, writeValue } from './store-mutator.js';
import type { StoreFs } from './store-fs.js';
import type { LoadedStore } from './store-file.js';
import { listFromSnapshot } from './store-values.js';

/** An opened store file and how to serve it. */
export interface OpenedStore {
  readonly fs: StoreFs;
  readonly path: string;
  readonly initial: LoadedStore;
  /** Its lock and directory; undefined when opened read-only. */
  readonly writer: StoreWriter | undefined;
  readonly historyLimit: number;
  readonly watchIntervalMs: number;
  readonly warn: OnFileWarning;
}

/**
 * The Datastore over `o` (see `createFileDatastore` for its contract). `close` ends the watches,
 * waits for the writes in flight and releases the files; a directory handle that fails to close
 * is a warning.
 */
export function createOpenFileDatastore(o: OpenedStore): Datastore {
  const { path, writer, warn } = o;
  const fileWatch = createFileWatch({
    historyLimit: Math.max(o.historyLimit, 1),
    intervalMs: o.watchIntervalMs,
    initial: o.initial.snapshot,
    poll: async () => {
      await cache.refresh();
    },
  });
  const cache = createSnapshotCache({
    ...o,
    onChange: (previous, next) => fileWatch.sync(previous, next),
  });
  const queue = createSerialQueue();
  let closed = false;
  const ensureOpen = (): void => {
    if (closed)
      throw new IpamError('Unavailable', `${path}: datastore is closed`, { identifier: path });
  };
  const mutate = createStoreMutator({ ...o, ensureOpen, queue, cache });
  return {
    create: (kv) => writeValue(mutate, 'create', kv),
    update: (kv) => writeValue(mutate, 'update', kv),
    apply: (kv) => writeValue(mutate, 'apply', kv),
    async delete(key, deleteOptions = {}) {
      await mutate([toMutation({ op: 'delete', key, options: deleteOptions }, () => '')]);
    },
    transact: (writes) => transactWrites(mutate, writes),
    async get<K extends Kind>(key: DatastoreKey<K>): Promise<KVPair<K>> {
      ensureOpen();
      const entry = (await cache.refresh()).entries.get(keyToPath(key));
      if (!entry) throw doesNotExistError(key);
      return toKvPair(entry) as KVPair<K>;
    },
    async list(listOptions) {
      ensureOpen();
      const snapshot = await cache.refresh();
      return listFromSnapshot(snapshot, cache.index(), listOptions);
    },
    async listMany(options) {
      ensureOpen();
      // One refresh: every list reads the same snapshot, hence the same revision.
      const snapshot = await cache.refresh();
      return options.map((lo) => listFromSnapshot(snapshot, cache.index(), lo));
    },
    watch(listOptions, watchOptions = {}) {
      ensureOpen();
      return fileWatch.watch(listOptions, watchOptions, cache.current().revision);
    },
    async close() {
      if (closed) return;
      closed = true;
      fileWatch.closeAll();
      await queue.drain();
      await cache.close();
      await writer?.lock.dispose();
      // Closing succeeds whatever: a directory handle that fails to close is a warning.
      await writer?.dirHandle
        .close()
        .catch((cause: unknown) =>
          warn({ message: 'could not close the directory handle of', path: dirname(path), cause }),
        );
    },
  };
}
