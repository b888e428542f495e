// The store's writes: all or none, serialized in-process, then under the file lock, against the
// file's latest state, in one atomic replacement of the file.
import { randomUUID } from 'node:crypto';
import type { OnFileWarning } from '@netledger/file-lock';
import { IpamError } from '@netledger/ipam-core';
import type { Kind, KVPair, NewKVPair, TransactionWrite } from '@netledger/ipam-core';
import { encodeCheckedValue, toMutation } from '@netledger/ipam-core/adapter';
import type { Mutation } from './mutate-snapshot.js';
import { mutateSnapshot } from './mutate-snapshot.js';
import type { SerialQueue } from './serial-queue.js';
import type { SnapshotCache } from './snapshot-cache.js';
import type { StoreWriter } from './open-for-writing.js';
import { serializeStoreDocument } from './store-document.js';
import type { StoreFs } from './store-fs.js';
import { commitStoreFile } from './store-file.js';
import type { HistoryRecord } from './store-snapshot.js';
import { asWritten } from './store-values.js';
import { withStoreLock } from './with-store-lock.js';

/** Applies mutations all or none; the change each made. */
export type Mutate = (mutations: readonly Mutation[]) => Promise<readonly HistoryRecord[]>;

/** What the writes need: the open store, its cache, and its writer (none when read-only). */
export interface StoreMutatorOptions {
  readonly path: string;
  /** Throws `Unavailable` once the store is closed. */
  readonly ensureOpen: () => void;
  /** Serializes this process's writes. */
  readonly queue: SerialQueue;
  readonly fs: StoreFs;
  readonly cache: SnapshotCache;
  readonly writer: StoreWriter | undefined;
  readonly historyLimit: number;
  readonly warn: OnFileWarning;
}

/**
 * A function applying `mutations` all or none; it returns the change each made. Fails
 * `Unavailable` once the store is closed or when it was opened read-only; a compare-and-swap
 * that fails leaves the file untouched.
 */
export function createStoreMutator(o: StoreMutatorOptions): Mutate {
  const { path, fs, cache, writer, historyLimit, warn } = o;
  return async (mutations) => {
    o.ensureOpen();
    if (!writer) {
      throw new IpamError(
        'Unavailable',
        `${path}: read-only or not writable location: the datastore was opened read-only`,
        { identifier: path },
      );
    }
    const { lock, dirHandle } = writer;
    return o.queue.run(() =>
      withStoreLock({ lock, path, warn }, async () => {
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
}

/** Writes one value through `mutate`; returns it as written, with the value read back from its text. */
export async function writeValue<K extends Kind>(
  mutate: Mutate,
  op: 'create' | 'update' | 'apply',
  kv: NewKVPair<K> & { revision?: string },
): Promise<KVPair<K>> {
  const checked = encodeCheckedValue(kv.key, kv.value);
  const mutation: Mutation =
    op === 'update'
      ? { op, key: kv.key, value: checked.text, revision: kv.revision! }
      : { op, key: kv.key, value: checked.text };
  const [change] = await mutate([mutation]);
  return asWritten(change!, checked.value);
}

/** Writes `writes` all or none through `mutate`; each as written (undefined for a delete). */
export async function transactWrites(
  mutate: Mutate,
  writes: readonly TransactionWrite[],
): Promise<(KVPair | undefined)[]> {
  const checked = writes.map((w) =>
    w.op === 'delete' ? undefined : encodeCheckedValue(w.kv.key, w.kv.value),
  );
  const changes = await mutate(writes.map((w, i) => toMutation(w, () => checked[i]!.text)));
  return changes.map((c, i) =>
    c.type === 'deleted' ? undefined : asWritten(c, checked[i]!.value),
  );
}
