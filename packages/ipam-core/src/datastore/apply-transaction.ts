import { IpamError } from '../errors.js';
import { describeKey, keyToPath } from '../model/keys.js';
import type { DatastoreKey } from '../model/keys.js';
import { applyMutation } from './apply-mutation.js';
import type { EntryChange, EntryState, Mutation } from './apply-mutation.js';
import type { TransactionWrite } from './datastore.js';

/**
 * The changes a transaction makes, each write at the next store revision in order (the embedded
 * stores give every write its own revision; etcd gives a transaction one). Pure: the first write
 * whose precondition fails throws its `applyMutation` error and nothing is to be applied. Keys
 * must be distinct (`InvalidArgument` otherwise), so every write is checked against the state as
 * it was.
 */
export function applyTransaction<V>(
  state: EntryState<V>,
  mutations: readonly Mutation<V>[],
  /** The uid of an object created at `revision` (asked only for creates and applies). */
  newUid: (revision: number) => string,
): EntryChange<V>[] {
  assertDistinctKeys(mutations.map((m) => m.key));
  return mutations.map((m, i) => {
    const revision = state.revision + i;
    const creates = m.op === 'create' || m.op === 'apply';
    return applyMutation({ entries: state.entries, revision }, m, {
      newUid: creates ? newUid(revision + 1) : '',
    });
  });
}

/** Refuses (`InvalidArgument`, naming it) a key a transaction would write more than once. */
export function assertDistinctKeys(keys: readonly DatastoreKey[]): void {
  const paths = new Set<string>();
  for (const key of keys) {
    const path = keyToPath(key);
    if (paths.has(path)) {
      throw new IpamError(
        'InvalidArgument',
        `a transaction writes ${describeKey(key)} more than once`,
        { identifier: describeKey(key) },
      );
    }
    paths.add(path);
  }
}

/** A transaction write as a store mutation, its value turned into the store's form by `encode`. */
export function toMutation<V>(
  write: TransactionWrite,
  encode: (kv: TransactionWrite & { op: 'create' | 'update' }) => V,
): Mutation<V> {
  switch (write.op) {
    case 'create':
      return { op: 'create', key: write.kv.key, value: encode(write) };
    case 'update':
      return {
        op: 'update',
        key: write.kv.key,
        value: encode(write),
        revision: write.kv.revision,
      };
    case 'delete':
      return {
        op: 'delete',
        key: write.key,
        ...(write.options?.revision !== undefined && { revision: write.options.revision }),
        ...(write.options?.uid !== undefined && { uid: write.options.uid }),
      };
  }
}
