import { applyTransaction } from '@netledger/ipam-core/adapter';
import type { Mutation as EntryMutation } from '@netledger/ipam-core/adapter';
import type { HistoryRecord, StoreSnapshot } from './store-snapshot.js';

/** One write, with its value already encoded as Calico JSON text. */
export type Mutation = EntryMutation<string>;

/** What {@link mutateSnapshot} needs besides the snapshot. */
export interface MutationContext {
  /** The uid of the next newly created object. */
  readonly newUid: () => string;
  /** How many changes the history keeps. */
  readonly historyLimit: number;
}

/** The new snapshot, and the change each write made, in order. */
export interface MutationResult {
  readonly snapshot: StoreSnapshot;
  readonly changes: readonly HistoryRecord[];
}

function withChanges(
  snapshot: StoreSnapshot,
  records: readonly HistoryRecord[],
  historyLimit: number,
): StoreSnapshot {
  const entries = new Map(snapshot.entries);
  for (const record of records) {
    if (record.type === 'deleted') entries.delete(record.path);
    else entries.set(record.path, record.entry);
  }
  const all = [...snapshot.history, ...records];
  const keep = Math.max(0, historyLimit);
  const history = all.length > keep ? all.slice(all.length - keep) : all;
  const revision = records.at(-1)?.revision ?? snapshot.revision;
  return {
    storeId: snapshot.storeId,
    revision,
    compactedRevision: revision - history.length,
    entries,
    history,
  };
}

/**
 * Applies writes to a snapshot, all or none, with ipam-core's compare-and-swap rules
 * (`applyTransaction`, whose `IpamError`s it throws), and returns a new snapshot; the input is
 * not changed. Each write is one change at the next revision, appended to the history, dropping
 * the oldest records beyond `historyLimit`.
 */
export function mutateSnapshot(
  snapshot: StoreSnapshot,
  mutations: readonly Mutation[],
  context: MutationContext,
): MutationResult {
  const changes = applyTransaction(snapshot, mutations, context.newUid);
  return { snapshot: withChanges(snapshot, changes, context.historyLimit), changes };
}
