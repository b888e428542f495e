import { IpamError, describeKey, keyToPath } from '@netledger/ipam-core';
import type { DatastoreKey } from '@netledger/ipam-core';
import type { HistoryRecord, StoreSnapshot, StoredEntry } from './store-snapshot.js';

/** One write, with its value already encoded as Calico JSON text. */
export type Mutation =
  | { readonly op: 'create'; readonly key: DatastoreKey; readonly value: string }
  | {
      readonly op: 'update';
      readonly key: DatastoreKey;
      readonly value: string;
      readonly revision: string;
    }
  | { readonly op: 'apply'; readonly key: DatastoreKey; readonly value: string }
  | {
      readonly op: 'delete';
      readonly key: DatastoreKey;
      readonly revision?: string;
      readonly uid?: string;
    };

/** What {@link applyMutation} needs besides the snapshot. */
export interface MutationContext {
  /** The uid a newly created object gets. */
  readonly newUid: string;
  /** How many changes the history keeps. */
  readonly historyLimit: number;
}

/** The new snapshot, and the object as written (absent for a delete). */
export interface MutationResult {
  readonly snapshot: StoreSnapshot;
  readonly entry?: StoredEntry;
}

const missing = (key: DatastoreKey): IpamError =>
  new IpamError('DoesNotExist', `resource does not exist: ${describeKey(key)}`, {
    identifier: describeKey(key),
  });
const conflict = (key: DatastoreKey): IpamError =>
  new IpamError('UpdateConflict', `update conflict: ${describeKey(key)}`, {
    identifier: describeKey(key),
  });

function withChange(
  snapshot: StoreSnapshot,
  record: HistoryRecord,
  historyLimit: number,
): StoreSnapshot {
  const entries = new Map(snapshot.entries);
  if (record.type === 'deleted') entries.delete(record.path);
  else entries.set(record.path, record.entry);
  const all = [...snapshot.history, record];
  const keep = Math.max(0, historyLimit);
  const history = all.length > keep ? all.slice(all.length - keep) : all;
  return {
    storeId: snapshot.storeId,
    revision: record.revision,
    compactedRevision: record.revision - history.length,
    entries,
    history,
  };
}

/**
 * Applies one write to a snapshot with etcd semantics and returns a new snapshot (the input is
 * not changed): `create` fails `AlreadyExists`; `update` fails `DoesNotExist`, or
 * `UpdateConflict` unless `revision` is the object's mod revision; `apply` upserts; `delete` fails
 * `DoesNotExist`, or `UpdateConflict` when a given revision or uid does not match. Every write
 * bumps the store revision by one and appends one history record, dropping the oldest beyond
 * `historyLimit`.
 */
export function applyMutation(
  snapshot: StoreSnapshot,
  mutation: Mutation,
  context: MutationContext,
): MutationResult {
  const path = keyToPath(mutation.key);
  const current = snapshot.entries.get(path);
  const revision = snapshot.revision + 1;
  const write = (type: 'added' | 'modified', value: string, uid: string): MutationResult => {
    const entry: StoredEntry = {
      key: mutation.key,
      value,
      modRevision: revision,
      createRevision: current?.createRevision ?? revision,
      uid,
    };
    const next = withChange(snapshot, { type, revision, path, entry }, context.historyLimit);
    return { snapshot: next, entry };
  };
  switch (mutation.op) {
    case 'create':
      if (current) {
        throw new IpamError('AlreadyExists', `resource already exists: ${path}`, {
          identifier: path,
        });
      }
      return write('added', mutation.value, context.newUid);
    case 'update':
      if (!current) throw missing(mutation.key);
      if (String(current.modRevision) !== mutation.revision) throw conflict(mutation.key);
      return write('modified', mutation.value, current.uid);
    case 'apply':
      return current
        ? write('modified', mutation.value, current.uid)
        : write('added', mutation.value, context.newUid);
    case 'delete': {
      if (!current) throw missing(mutation.key);
      if (mutation.revision !== undefined && String(current.modRevision) !== mutation.revision) {
        throw conflict(mutation.key);
      }
      if (mutation.uid !== undefined && current.uid !== mutation.uid) throw conflict(mutation.key);
      const record: HistoryRecord = { type: 'deleted', revision, path, entry: current };
      return { snapshot: withChange(snapshot, record, context.historyLimit) };
    }
  }
}
