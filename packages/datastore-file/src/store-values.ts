// What the store's reads and writes give back: KVPairs out of a snapshot and out of its changes.
import type { DatastoreKey, Kind, KVPair, ListOptions, ListResult } from '@netledger/ipam-core';
import { listPrefixes, matchesListOptions } from '@netledger/ipam-core/adapter';
import type { SortedKeys } from '@netledger/ipam-core/adapter';
import { toKvPair } from './history-events.js';
import type { HistoryRecord, StoreSnapshot } from './store-snapshot.js';

/** The object a write stored, with `value` read back from the text it stored. */
export function asWritten<K extends Kind>(change: HistoryRecord, value: unknown): KVPair<K> {
  const { entry } = change;
  return {
    key: entry.key as DatastoreKey<K>,
    value: value as KVPair<K>['value'],
    revision: String(entry.modRevision),
    uid: entry.uid,
  };
}

/**
 * A list out of one snapshot and its key index (the index of the snapshot the cache holds), in
 * key order, at the snapshot's revision.
 */
export function listFromSnapshot<K extends Kind>(
  snapshot: StoreSnapshot,
  index: SortedKeys,
  listOptions: ListOptions<K>,
): ListResult<K> {
  const items: KVPair<K>[] = [];
  // Prefixes are disjoint and visited in key order, so the result is in key order.
  for (const prefix of listPrefixes(listOptions).sort()) {
    for (const p of index.withPrefix(prefix)) {
      const entry = snapshot.entries.get(p)!;
      if (matchesListOptions(entry.key, listOptions)) items.push(toKvPair(entry) as KVPair<K>);
    }
  }
  return { items, revision: String(snapshot.revision) };
}
