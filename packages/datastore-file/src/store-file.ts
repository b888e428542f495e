import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import type { OnFileWarning } from '@netledger/file-lock';
import { IpamError } from '@netledger/ipam-core';
import { errnoOf, toUnavailable } from './fs-errors.js';
import { parseStoreDocument } from './store-document.js';
import type { StoreFileHandle, StoreFs } from './store-fs.js';
import { PRIVATE_FILE_MODE } from './store-fs.js';
import type { StoreSnapshot } from './store-snapshot.js';

/** What identifies one version of the file without reading it. */
export interface FileStamp {
  readonly dev: bigint;
  readonly ino: bigint;
  readonly size: bigint;
  readonly mtimeNs: bigint;
}

/**
 * A snapshot and the open handle of the file it came from. Holding the handle keeps the inode
 * alive, so its number cannot be reused by a later file while we compare stamps against it.
 */
export interface LoadedStore {
  readonly snapshot: StoreSnapshot;
  readonly handle: StoreFileHandle;
  readonly stamp: FileStamp;
}

const stampOf = (s: { dev: bigint; ino: bigint; size: bigint; mtimeNs: bigint }): FileStamp => ({
  dev: s.dev,
  ino: s.ino,
  size: s.size,
  mtimeNs: s.mtimeNs,
});

/**
 * True when both stamps name the same file version. Writers never modify a store file in place
 * (they rename a new one over it), so the same dev+inode means the same content; size and mtime
 * also catch an in-place edit by hand.
 */
export function sameStamp(a: FileStamp, b: FileStamp): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs;
}

/** The stamp of the file at `path` now; undefined if there is none. */
export async function statStamp(fs: StoreFs, path: string): Promise<FileStamp | undefined> {
  try {
    return stampOf(await fs.statBig(path));
  } catch (e) {
    if (errnoOf(e) === 'ENOENT') return undefined;
    throw toUnavailable(path, 'stat', e);
  }
}

/** The command that brings a damaged store back, named in every refusal of one. */
export const REPAIR_HINT = 'run `netledgerctl datastore repair`';

/** A damaged store's `CorruptValue` as the store reports it: pointing at the repair command. */
function pointAtRepair(e: unknown): unknown {
  if (!(e instanceof IpamError) || e.code !== 'CorruptValue') return e;
  return new IpamError('CorruptValue', `${e.message}; ${REPAIR_HINT}`, {
    ...(e.identifier !== undefined && { identifier: e.identifier }),
    cause: e,
  });
}

/**
 * Opens, reads and fully checks the store file (`CorruptValue` naming the path and key when it is
 * not a valid store, and the repair command). The handle stays open in the result; close it when
 * replacing the snapshot.
 */
export async function loadStoreFile(
  fs: StoreFs,
  path: string,
  previous?: StoreSnapshot,
): Promise<LoadedStore> {
  let handle: StoreFileHandle;
  try {
    handle = await fs.open(path, 'r');
  } catch (e) {
    throw toUnavailable(path, 'opening the store', e);
  }
  try {
    const stamp = stampOf(await handle.statBig());
    const text = await handle.readText();
    const snapshot = parseStoreDocument(text, {
      filePath: path,
      ...(previous && { previous }),
    });
    return { snapshot, handle, stamp };
  } catch (e) {
    await handle.close();
    throw toUnavailable(path, 'reading the store', pointAtRepair(e));
  }
}

/** Options for {@link commitStoreFile}. */
export interface CommitOptions {
  readonly fs: StoreFs;
  readonly path: string;
  /** The file's contents: the bytes `serializeStoreDocument` gave. */
  readonly contents: Uint8Array;
  /** An open handle on the store's directory, fsynced after the rename. */
  readonly dirHandle: StoreFileHandle;
  /**
   * Keep the file being replaced as `<path>.prev` (default false). Only a caller that has just
   * read and checked that file under the lock may ask: `.prev` must only ever hold a good store.
   */
  readonly keepPrevious?: boolean;
  /** Told of a cleanup that failed (a temp file left behind, a handle not closed). */
  readonly warn: OnFileWarning;
}

const TEMP_MARK = '.tmp-';

/** The suffix of the previous good generation kept beside the store (`datastore.json.prev`). */
export const PREVIOUS_SUFFIX = '.prev';

/**
 * A name in the store's directory that the open-time sweep removes if a crash leaves it. One
 * commit's names share its random `token` (drawn once per commit) and differ by `what`.
 */
const tempName = (path: string, what: string, token: string): string =>
  `${path}${TEMP_MARK}${what}${process.pid}-${token}`;

/**
 * Makes the current store file the previous generation: a hard link (no copy, no fsync of its
 * own: the directory fsync after the store's rename covers it), renamed over `<path>.prev` so a
 * crash leaves the old `.prev` or the new one; the link is then removed if the rename left it.
 * Nothing to keep when there is no store yet.
 */
async function keepAsPrevious(
  fs: StoreFs,
  path: string,
  { token, warn }: { token: string; warn: OnFileWarning },
): Promise<void> {
  const link = tempName(path, 'prev-', token);
  try {
    await fs.link(path, link);
  } catch (e) {
    if (errnoOf(e) === 'ENOENT') return;
    throw e;
  }
  try {
    await fs.rename(link, `${path}${PREVIOUS_SUFFIX}`);
  } finally {
    // Renaming a link over another link to the same file does nothing and leaves both (POSIX): so
    // it goes when `.prev` already is the current file (a writer died after keeping it, before
    // replacing the store), and after a failed rename. Gone already after a rename that moved it;
    // left behind, it is swept at the next open.
    await fs.unlink(link).catch(unlessGone(warn, 'could not remove the temp link', link));
  }
}

/**
 * Replaces the store file atomically: write a temp file (mode 0600) in the same directory, fsync
 * it, keep the current file as `<path>.prev` if asked, rename the temp file over the store, fsync
 * the directory. A crash at any point leaves the old file or the new one (and an old or new
 * `.prev`). On failure the temp file is removed and the store is unchanged. Returns the new
 * file's handle.
 */
export async function commitStoreFile(options: CommitOptions): Promise<{
  handle: StoreFileHandle;
  stamp: FileStamp;
}> {
  const { fs, path, contents, dirHandle } = options;
  const token = randomBytes(6).toString('hex');
  const temp = tempName(path, '', token);
  let handle: StoreFileHandle | undefined;
  try {
    handle = await fs.open(temp, 'wx', PRIVATE_FILE_MODE);
    await handle.writeContents(contents);
    await handle.sync();
    if (options.keepPrevious) await keepAsPrevious(fs, path, { token, warn: options.warn });
    await fs.rename(temp, path);
    await dirHandle.sync();
    return { handle, stamp: stampOf(await handle.statBig()) };
  } catch (e) {
    // The write's failure is what the caller gets; a failed cleanup is only a warning (a temp
    // file left behind is swept at the next open).
    await handle
      ?.close()
      .catch((cause: unknown) =>
        options.warn({ message: 'could not close the temp file', path: temp, cause }),
      );
    await fs.unlink(temp).catch(unlessGone(options.warn, 'could not remove the temp file', temp));
    throw toUnavailable(path, 'writing the store', e);
  }
}

/**
 * Removes the temp files of unfinished writes next to the store. Call it only while holding the
 * lock: only the lock holder writes one, so any other is garbage left by a crash. Best effort: a
 * file (or the directory) that cannot be read or removed is a warning, and is left.
 */
export async function sweepTempFiles(
  fs: StoreFs,
  path: string,
  warn: OnFileWarning,
): Promise<void> {
  const dir = dirname(path);
  const tempPrefix = `${basename(path)}${TEMP_MARK}`;
  const names =
    (await fs
      .readdir(dir)
      .catch(unlessGone(warn, 'could not list the temp files of unfinished writes in', dir))) ?? [];
  for (const name of names) {
    if (!name.startsWith(tempPrefix)) continue;
    const temp = join(dir, name);
    await fs
      .unlink(temp)
      .catch(unlessGone(warn, 'could not remove the temp file of an unfinished write', temp));
  }
}

/** A `catch` for a cleanup of `path`: its failure is a warning, unless the file is gone. */
function unlessGone(warn: OnFileWarning, message: string, path: string) {
  return (cause: unknown): undefined => {
    if (errnoOf(cause) !== 'ENOENT') warn({ message, path, cause });
    return undefined;
  };
}
