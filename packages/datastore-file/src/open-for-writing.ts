// Opening the store for writing: its lock, its directory handle, and the file as found (or created).
import { randomBytes, randomUUID } from 'node:crypto';
import { dirname } from 'node:path';
import { createFileLock, currentLockHolder } from '@netledger/file-lock';
import type { FileLock, OnFileWarning } from '@netledger/file-lock';
import { toUnavailable } from './fs-errors.js';
import { openOrCreate, prepareLocation } from './open-store-file.js';
import type { StoreFileHandle, StoreFs } from './store-fs.js';
import type { LoadedStore } from './store-file.js';
import { sweepTempFiles } from './store-file.js';
import { withStoreLock } from './with-store-lock.js';

/** What a store opened for writing holds: its lock and its directory (fsynced after renames). */
export interface StoreWriter {
  readonly lock: FileLock;
  readonly dirHandle: StoreFileHandle;
}

/**
 * Opens the store for writing: takes the lock once to sweep what crashed processes left and to
 * load the file, or create it (see `openOrCreate`). A failure releases everything it took.
 */
export async function openForWriting(
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
    const initial = await withStoreLock({ lock, path, warn }, async () => {
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
