import type { EntryChange, StoredEntry as CoreStoredEntry } from '@netledger/ipam-core';

/** The `format` field of every store file this package writes. */
export const STORE_FORMAT = 'netledger-datastore/v1';

/** One stored object. `value` is Calico's JSON text, exactly what `encodeValue` returned. */
export type StoredEntry = CoreStoredEntry<string>;

/**
 * One past change, kept so that a watch can start from an earlier revision and so that other
 * processes can see what changed. For `deleted`, `entry` is the object as it was before.
 */
export type HistoryRecord = EntryChange<string>;

/**
 * The whole store at one revision, immutable. Every write makes a new one. Invariant: revisions
 * are consecutive, so `compactedRevision + history.length === revision`.
 */
export interface StoreSnapshot {
  /** Random id chosen when the file was created; a change means the file was replaced. */
  readonly storeId: string;
  /** Incremented by every write; the revision `list` reports. */
  readonly revision: number;
  /** Revision of the newest change no longer in `history` (0: none dropped). */
  readonly compactedRevision: number;
  /** Objects by Calico etcd path. */
  readonly entries: ReadonlyMap<string, StoredEntry>;
  /** The most recent changes, oldest first. */
  readonly history: readonly HistoryRecord[];
}

/** A store with nothing in it, at revision 0. */
export function emptySnapshot(storeId: string): StoreSnapshot {
  return { storeId, revision: 0, compactedRevision: 0, entries: new Map(), history: [] };
}
