import { randomBytes, randomUUID } from 'node:crypto';
import { homedir } from 'node:os';
import { dirname, resolve } from 'node:path';
import { FileLockError, createFileLock, currentLockHolder, safeWarner } from '@netledger/file-lock';
import type { FileLock, OnFileWarning } from '@netledger/file-lock';
import { IpamError } from '@netledger/ipam-core';
import type {
  Datastore,
  DatastoreKey,
  KVPair,
  Kind,
  ListOptions,
  ListResult,
  NewKVPair,
} from '@netledger/ipam-core';
import {
  encodeCheckedValue,
  toMutation,
  doesNotExistError,
  keyToPath,
  listPrefixes,
  matchesListOptions,
} from '@netledger/ipam-core/adapter';
import { mutateSnapshot } from './mutate-snapshot.js';
import type { Mutation } from './mutate-snapshot.js';
import { defaultDatastorePath } from './default-datastore-path.js';
import { createFileWatch } from './file-watch.js';
import { toUnavailable } from './fs-errors.js';
import { toKvPair } from './history-events.js';
import { createSerialQueue } from './serial-queue.js';
import { createSnapshotCache } from './snapshot-cache.js';
import { openExisting, openOrCreate, prepareLocation } from './open-store-file.js';
import { serializeStoreDocument } from './store-document.js';
import { blockingFs, threadPoolFs } from './store-fs.js';
import type { StoreFileHandle, StoreFs } from './store-fs.js';
import type { LoadedStore } from './store-file.js';
import { commitStoreFile, sweepTempFiles } from './store-file.js';
import type { HistoryRecord } from './store-snapshot.js';

/** Default for {@link FileDatastoreOptions.lockTimeoutMs}. */
export const DEFAULT_LOCK_TIMEOUT_MS = 10_000;
/** Default for {@link FileDatastoreOptions.historyLimit}. */
export const DEFAULT_HISTORY_LIMIT = 100;
/** Default for {@link FileDatastoreOptions.watchIntervalMs}. */
export const DEFAULT_WATCH_INTERVAL_MS = 100;

/** Options for {@link createFileDatastore}. */
export interface FileDatastoreOptions {
  /**
   * The store file. Default: {@link defaultDatastorePath} of `process.env`, the uid and the home
   * directory. Its directory is created if missing; the lock (`<path>.lock`) and temp files live
   * next to it.
   */
  readonly path?: string;
  /** How long a write waits for a lock held by a live process before `Unavailable` (10 s). */
  readonly lockTimeoutMs?: number;
  /**
   * How many past changes the file keeps for watches from an earlier revision and for other
   * processes' watches (100). Each is a full copy of the value written, so this bounds file size.
   */
  readonly historyLimit?: number;
  /** How often an open watch checks the file for other processes' writes (100 ms). */
  readonly watchIntervalMs?: number;
  /**
   * Make file calls blocking instead of running them on libuv's thread pool (default false). For
   * a one-shot process such as the CNI plugin, which has nothing else to do while it waits for the
   * disk: it saves a thread-pool round trip per call. A long-lived process keeps the default, so
   * its event loop stays free while the store fsyncs.
   */
  readonly blockingIo?: boolean;
  /**
   * Open for reading only (default false): nothing is created, swept or locked, so a store in a
   * read-only directory, or one this user may read but not write, opens. A missing store fails
   * `DoesNotExist`; every write fails `Unavailable` (`<path>: read-only ...`).
   */
  readonly readOnly?: boolean;
  /**
   * Told of a cleanup that failed without failing the call (a temp file or a lock file left
   * behind, a file handle not closed) as a `FileWarning` (`message`, `path`, `cause`); a file
   * already gone is no failure. Default: nothing is told. Called synchronously; what it throws is
   * ignored.
   */
  readonly onWarning?: OnFileWarning;
}

/** The object a write stored, with `value` read back from the text it stored. */
function asWritten<K extends Kind>(change: HistoryRecord, value: unknown): KVPair<K> {
  const { entry } = change;
  return {
    key: entry.key as DatastoreKey<K>,
    value: value as KVPair<K>['value'],
    revision: String(entry.modRevision),
    uid: entry.uid,
  };
}

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
interface LockedStore {
  readonly lock: FileLock;
  readonly path: string;
  readonly warn: OnFileWarning;
}

/**
 * Runs `task` holding the store's lock; lock failures are the store's `Unavailable`. When `task`
 * fails, its error is thrown and a lock that cannot be released then is a warning (other processes
 * wait for it until this one exits, then break it as stale).
 */
async function withLock<T>({ lock, path, warn }: LockedStore, task: () => Promise<T>): Promise<T> {
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

/** What a store opened for writing holds: its lock and its directory (fsynced after renames). */
interface StoreWriter {
  readonly lock: FileLock;
  readonly dirHandle: StoreFileHandle;
}

/**
 * Opens the store for writing: takes the lock once to sweep what crashed processes left and to
 * load the file, or create it (see `openOrCreate`). A failure releases everything it took.
 */
async function openForWriting(
  fs: StoreFs,
  path: string,
  { lockTimeoutMs, warn }: { lockTimeoutMs: number; warn: OnFileWarning },
): Promise<{ initial: LoadedStore; writer: StoreWriter }> {
  await prepareLocation(fs, path, { create: true });
  const dirHandle = await fs.open(dirname(path), 'r').catch((e: unknown) => {
    throw toUnavailable(path, 'opening the directory', e);
  });
  const lock = createFileLock({
    fs,
    lockPath: `${path}.lock`,
    timeoutMs: lockTimeoutMs,
    holder: await currentLockHolder(fs, randomBytes(8).toString('hex')),
    onWarning: warn,
  });
  try {
    const initial = await withLock({ lock, path, warn }, async () => {
      // What crashed processes left: temp files of unfinished writes, prepared lock files.
      await sweepTempFiles(fs, path, warn);
      await lock.sweep();
      return openOrCreate(fs, path, { dirHandle, newStoreId: () => randomUUID(), warn });
    });
    return { initial, writer: { lock, dirHandle } };
  } catch (e) {
    // The open's failure is what the caller gets; a directory handle left open is a warning.
    await lock.dispose();
    await dirHandle
      .close()
      .catch((cause: unknown) =>
        warn({ message: 'could not close the directory handle of', path: dirname(path), cause }),
      );
    throw e;
  }
}

/**
 * Opens (creating it if missing) the embedded single-host store: one JSON file holding every
 * object under its Calico etcd path, shared by any number of processes on the host.
 *
 * Writes are compare-and-swap under a cross-process lock file and replace the file atomically
 * (temp file, fsync, rename, fsync of the directory), so a crash leaves the old or the new state.
 * Reads take no lock: they `stat` the file and re-read it only when it changed.
 *
 * Fails `Unavailable` for a location that cannot be written (message `<path>: read-only ...`) or
 * a lock held by a live process past `lockTimeoutMs` (naming its pid); `InvalidArgument` for a
 * path that is a directory or not a regular file; `CorruptValue` naming the path, the key and
 * `netledgerctl datastore repair` for a file that is not a valid store (its seal included), which
 * it never overwrites, and for a missing file whose previous generation `<path>.prev` exists
 * (it never creates a store over a backup). With `readOnly`, it creates, sweeps and locks nothing
 * (`DoesNotExist` without a store) and every write fails `Unavailable`. A failed open leaves
 * nothing held.
 * A write whose value encodes to more than Kubernetes' object size (1.5 MiB) is refused
 * `InvalidArgument` naming the key before the lock is taken: the file is not touched.
 */
export async function createFileDatastore(options: FileDatastoreOptions = {}): Promise<Datastore> {
  const path = resolve(
    options.path ?? defaultDatastorePath(process.env, process.getuid?.(), homedir()),
  );
  const historyLimit = Math.max(0, options.historyLimit ?? DEFAULT_HISTORY_LIMIT);
  const fs = options.blockingIo ? blockingFs : threadPoolFs;
  const warn = safeWarner(options.onWarning);
  let initial: LoadedStore;
  let writer: StoreWriter | undefined;
  if (options.readOnly === true) {
    await prepareLocation(fs, path, { create: false });
    initial = await openExisting(fs, path);
  } else {
    ({ initial, writer } = await openForWriting(fs, path, {
      lockTimeoutMs: options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS,
      warn,
    }));
  }

  const fileWatch = createFileWatch({
    historyLimit: Math.max(historyLimit, 1),
    intervalMs: options.watchIntervalMs ?? DEFAULT_WATCH_INTERVAL_MS,
    initial: initial.snapshot,
    poll: async () => {
      await cache.refresh();
    },
  });
  const cache = createSnapshotCache({
    fs,
    path,
    initial,
    onChange: (previous, next) => fileWatch.sync(previous, next),
    warn,
  });
  const queue = createSerialQueue();
  let closed = false;

  const ensureOpen = (): void => {
    if (closed)
      throw new IpamError('Unavailable', `${path}: datastore is closed`, { identifier: path });
  };
  /**
   * Writes, all or none: serialized in-process, then under the file lock, against the file's
   * latest state, in one replacement of the file. Returns the change each write made.
   */
  const mutate = async (mutations: readonly Mutation[]) => {
    ensureOpen();
    if (!writer) {
      throw new IpamError(
        'Unavailable',
        `${path}: read-only or not writable location: the datastore was opened read-only`,
        { identifier: path },
      );
    }
    const { lock, dirHandle } = writer;
    return queue.run(() =>
      withLock({ lock, path, warn }, async () => {
        const base = await cache.refreshLocked();
        const result = mutateSnapshot(base, mutations, {
          newUid: () => randomUUID(),
          historyLimit,
        });
        const contents = serializeStoreDocument(result.snapshot);
        // `base` was just read and checked under the lock: it becomes the previous generation.
        const written = await commitStoreFile({
          fs,
          path,
          dirHandle,
          contents,
          keepPrevious: true,
          warn,
        });
        cache.replace({ snapshot: result.snapshot, ...written });
        return result.changes;
      }),
    );
  };
  /** Writes one value; returns it as written, with the value read back from its text. */
  const write = async <K extends Kind>(
    op: 'create' | 'update' | 'apply',
    kv: NewKVPair<K> & { revision?: string },
  ): Promise<KVPair<K>> => {
    const checked = encodeCheckedValue(kv.key, kv.value);
    const mutation: Mutation =
      op === 'update'
        ? { op, key: kv.key, value: checked.text, revision: kv.revision! }
        : { op, key: kv.key, value: checked.text };
    const [change] = await mutate([mutation]);
    return asWritten(change!, checked.value);
  };
  /** A list out of one refreshed snapshot (the index belongs to the snapshot the cache holds). */
  const listFrom = <K extends Kind>(
    snapshot: Awaited<ReturnType<typeof cache.refresh>>,
    listOptions: ListOptions<K>,
  ): ListResult<K> => {
    const index = cache.index();
    const items: KVPair<K>[] = [];
    // Prefixes are disjoint and visited in key order, so the result is in key order.
    for (const prefix of listPrefixes(listOptions).sort()) {
      for (const p of index.withPrefix(prefix)) {
        const entry = snapshot.entries.get(p)!;
        if (matchesListOptions(entry.key, listOptions)) items.push(toKvPair(entry) as KVPair<K>);
      }
    }
    return { items, revision: String(snapshot.revision) };
  };
  return {
    create: (kv) => write('create', kv),
    update: (kv) => write('update', kv),
    apply: (kv) => write('apply', kv),
    async delete(key, deleteOptions = {}) {
      await mutate([toMutation({ op: 'delete', key, options: deleteOptions }, () => '')]);
    },
    async transact(writes) {
      const checked = writes.map((w) =>
        w.op === 'delete' ? undefined : encodeCheckedValue(w.kv.key, w.kv.value),
      );
      const changes = await mutate(writes.map((w, i) => toMutation(w, () => checked[i]!.text)));
      return changes.map((c, i) =>
        c.type === 'deleted' ? undefined : asWritten(c, checked[i]!.value),
      );
    },
    async get<K extends Kind>(key: DatastoreKey<K>): Promise<KVPair<K>> {
      ensureOpen();
      const entry = (await cache.refresh()).entries.get(keyToPath(key));
      if (!entry) throw doesNotExistError(key);
      return toKvPair(entry) as KVPair<K>;
    },
    async list<K extends Kind>(listOptions: ListOptions<K>) {
      ensureOpen();
      return listFrom(await cache.refresh(), listOptions);
    },
    async listMany(options) {
      ensureOpen();
      // One refresh: every list reads the same snapshot, hence the same revision.
      const snapshot = await cache.refresh();
      return options.map((o) => listFrom(snapshot, o));
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
