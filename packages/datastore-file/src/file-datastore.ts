// The embedded single-host store's entry: its options, and opening it (read-only, or for writing
// under its lock); the opened store is served by open-file-datastore.ts.
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { safeWarner } from '@netledger/file-lock';
import type { OnFileWarning } from '@netledger/file-lock';
import type { Datastore } from '@netledger/ipam-core';
import { defaultDatastorePath } from './default-datastore-path.js';
import { createOpenFileDatastore } from './open-file-datastore.js';
import type { StoreWriter } from './open-for-writing.js';
import { openForWriting } from './open-for-writing.js';
import { openExisting, prepareLocation } from './open-store-file.js';
import { blockingFs, threadPoolFs } from './store-fs.js';
import type { LoadedStore } from './store-file.js';
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

  return createOpenFileDatastore({
    fs,
    path,
    initial,
    writer,
    historyLimit,
    watchIntervalMs: options.watchIntervalMs ?? DEFAULT_WATCH_INTERVAL_MS,
    warn,
  });
}
