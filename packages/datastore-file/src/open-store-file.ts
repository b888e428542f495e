import { dirname } from 'node:path';
import type { OnFileWarning } from '@netledger/file-lock';
import { IpamError } from '@netledger/ipam-core';
import { errnoOf, toUnavailable } from './fs-errors.js';
import { serializeStoreDocument } from './store-document.js';
import type { StoreFileHandle, StoreFs } from './store-fs.js';
import type { LoadedStore } from './store-file.js';
import {
  PREVIOUS_SUFFIX,
  REPAIR_HINT,
  commitStoreFile,
  loadStoreFile,
  statStamp,
} from './store-file.js';
import { emptySnapshot } from './store-snapshot.js';

/**
 * Checks that `path` can be a store file: not a directory, nothing but a regular file
 * (`InvalidArgument`). With `create`, makes its missing parent directories (`0700`) first
 * (`Unavailable`, read-only, when it cannot).
 */
export async function prepareLocation(
  fs: StoreFs,
  path: string,
  options: { readonly create: boolean },
): Promise<void> {
  const dir = dirname(path);
  if (options.create) {
    try {
      await fs.mkdirs(dir);
    } catch (e) {
      throw new IpamError(
        'Unavailable',
        `${path}: read-only or not writable location: cannot create directory ${dir} (${errnoOf(e) ?? String(e)})`,
        { identifier: path, cause: e },
      );
    }
  }
  const s = await fs.stat(path).catch((e: unknown) => {
    if (errnoOf(e) === 'ENOENT') return undefined;
    throw toUnavailable(path, 'stat', e);
  });
  // A path that can never hold a store is a wrong argument, not a store that is unavailable now.
  if (s?.isDirectory()) {
    throw new IpamError('InvalidArgument', `${path}: is a directory, not a datastore file`, {
      identifier: path,
    });
  }
  if (s && !s.isFile()) {
    throw new IpamError('InvalidArgument', `${path}: is not a regular file`, { identifier: path });
  }
}

/**
 * Why there is no store at `path`: `CorruptValue` when its previous generation (`<path>.prev`)
 * exists, since the store file was lost and a new one would soon replace that backup (repair
 * restores it); else `DoesNotExist`.
 */
async function missingStoreError(fs: StoreFs, path: string): Promise<IpamError> {
  const previous = `${path}${PREVIOUS_SUFFIX}`;
  const kept = await fs.stat(previous).then(
    () => true,
    (e: unknown) => {
      if (errnoOf(e) === 'ENOENT') return false;
      throw toUnavailable(previous, 'stat', e);
    },
  );
  if (!kept) {
    return new IpamError('DoesNotExist', `${path}: no datastore file`, { identifier: path });
  }
  return new IpamError(
    'CorruptValue',
    `${path}: the datastore file is missing but its previous generation ${previous} exists; refusing to start an empty store over it: ${REPAIR_HINT} to restore it`,
    { identifier: path },
  );
}

/**
 * Loads the store file at `path`, creating an empty store (a new `storeId`) when there is none.
 * Call it holding the store lock. Refuses (`CorruptValue`, naming the repair command) to create
 * one where the previous generation `<path>.prev` exists: the next write would replace that
 * backup with the empty store.
 */
export async function openOrCreate(
  fs: StoreFs,
  path: string,
  options: {
    readonly dirHandle: StoreFileHandle;
    readonly newStoreId: () => string;
    readonly warn: OnFileWarning;
  },
): Promise<LoadedStore> {
  if (await statStamp(fs, path)) return loadStoreFile(fs, path);
  const missing = await missingStoreError(fs, path);
  if (missing.code !== 'DoesNotExist') throw missing;
  const snapshot = emptySnapshot(options.newStoreId());
  const written = await commitStoreFile({
    fs,
    path,
    dirHandle: options.dirHandle,
    contents: serializeStoreDocument(snapshot),
    warn: options.warn,
  });
  return { snapshot, ...written };
}

/**
 * Loads the store file at `path`, creating nothing: `DoesNotExist` when there is none,
 * `CorruptValue` naming the repair command when only its previous generation is left.
 */
export async function openExisting(fs: StoreFs, path: string): Promise<LoadedStore> {
  if (await statStamp(fs, path)) return loadStoreFile(fs, path);
  throw await missingStoreError(fs, path);
}
