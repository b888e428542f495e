import type { DatastoreKey } from '../model/keys.js';
import { keyToPath } from '../model/keys.js';
import { alreadyExistsError, doesNotExistError, updateConflictError } from './store-errors.js';

/**
 * One write to a revisioned key-value store, with the value in the store's own form (`V`: the
 * memory store keeps decoded values, the file store Calico JSON text).
 */
export type Mutation<V> =
  | { readonly op: 'create'; readonly key: DatastoreKey; readonly value: V }
  | {
      readonly op: 'update';
      readonly key: DatastoreKey;
      readonly value: V;
      readonly revision: string;
    }
  | { readonly op: 'apply'; readonly key: DatastoreKey; readonly value: V }
  | {
      readonly op: 'delete';
      readonly key: DatastoreKey;
      readonly revision?: string;
      readonly uid?: string;
    };

/** One stored object with its etcd-style revisions and identity. */
export interface StoredEntry<V> {
  readonly key: DatastoreKey;
  readonly value: V;
  /** Store revision of the last write to this object: the compare-and-swap token. */
  readonly modRevision: number;
  /** Store revision at which the object was created. */
  readonly createRevision: number;
  /** Object identity: a fresh one for each create, kept across updates. */
  readonly uid: string;
}

/** What {@link applyMutation} reads: the objects by Calico etcd path, and the store revision. */
export interface EntryState<V> {
  readonly entries: ReadonlyMap<string, StoredEntry<V>>;
  readonly revision: number;
}

/**
 * The change one write makes, at the next store revision. For `added` and `modified`, `entry` is
 * the object as written; for `deleted`, the object as it was.
 */
export interface EntryChange<V> {
  readonly type: 'added' | 'modified' | 'deleted';
  readonly revision: number;
  readonly path: string;
  readonly entry: StoredEntry<V>;
}

/** What {@link applyMutation} needs besides the state. */
export interface MutationContext {
  /** The uid a newly created object gets. */
  readonly newUid: string;
}

/**
 * The compare-and-swap rules every embedded store applies (etcd's semantics): `create` fails
 * `AlreadyExists`; `update` fails `DoesNotExist`, or `UpdateConflict` unless `revision` is the
 * object's mod revision; `apply` upserts; `delete` fails `DoesNotExist`, or `UpdateConflict` when
 * a given revision or uid does not match. Pure: returns the change the write makes (every write
 * is at `state.revision + 1`; uid and create revision are kept across updates) and changes
 * nothing; the store applies it to its own structures (in place, or into a new snapshot), so a
 * refused write leaves the store as it was.
 */
export function applyMutation<V>(
  state: EntryState<V>,
  mutation: Mutation<V>,
  context: MutationContext,
): EntryChange<V> {
  const path = keyToPath(mutation.key);
  const current = state.entries.get(path);
  const revision = state.revision + 1;
  const write = (type: 'added' | 'modified', value: V, uid: string): EntryChange<V> => ({
    type,
    revision,
    path,
    entry: {
      key: mutation.key,
      value,
      modRevision: revision,
      createRevision: current?.createRevision ?? revision,
      uid,
    },
  });
  switch (mutation.op) {
    case 'create':
      if (current) throw alreadyExistsError(mutation.key);
      return write('added', mutation.value, context.newUid);
    case 'update':
      if (!current) throw doesNotExistError(mutation.key);
      if (String(current.modRevision) !== mutation.revision) {
        throw updateConflictError(mutation.key);
      }
      return write('modified', mutation.value, current.uid);
    case 'apply':
      return current
        ? write('modified', mutation.value, current.uid)
        : write('added', mutation.value, context.newUid);
    case 'delete':
      if (!current) throw doesNotExistError(mutation.key);
      if (mutation.revision !== undefined && String(current.modRevision) !== mutation.revision) {
        throw updateConflictError(mutation.key);
      }
      if (mutation.uid !== undefined && current.uid !== mutation.uid) {
        throw updateConflictError(mutation.key);
      }
      return { type: 'deleted', revision, path, entry: current };
  }
}
