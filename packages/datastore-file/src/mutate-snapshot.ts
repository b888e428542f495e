import { applyMutation } from '@netledger/ipam-core';
import type { Mutation as EntryMutation } from '@netledger/ipam-core';
import type { HistoryRecord, StoreSnapshot, StoredEntry } from './store-snapshot.js';

/** One write, with its value already encoded as Calico JSON text. */
export type Mutation = EntryMutation<string>;

/** What {@link mutateSnapshot} needs besides the snapshot. */
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
 * Applies one write to a snapshot with ipam-core's compare-and-swap rules (`applyMutation`, whose
 * `IpamError`s it throws) and returns a new snapshot; the input is not changed. The change is
 * appended to the history, dropping the oldest records beyond `historyLimit`.
 */
export function mutateSnapshot(
  snapshot: StoreSnapshot,
  mutation: Mutation,
  context: MutationContext,
): MutationResult {
  const change = applyMutation(snapshot, mutation, { newUid: context.newUid });
  const next = withChange(snapshot, change, context.historyLimit);
  return change.type === 'deleted' ? { snapshot: next } : { snapshot: next, entry: change.entry };
}
