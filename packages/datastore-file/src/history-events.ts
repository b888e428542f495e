import { decodeValue } from '@netledger/ipam-core/adapter';
import type { KVPair, WatchEvent } from '@netledger/ipam-core';
import type { HistoryRecord, StoredEntry } from './store-snapshot.js';

/** Decodes a stored entry into a fresh `KVPair`, so no caller can change what is cached. */
export function toKvPair(entry: StoredEntry): KVPair {
  return {
    key: entry.key,
    value: decodeValue(entry.key, entry.value),
    revision: String(entry.modRevision),
    uid: entry.uid,
  };
}

/** The watch event for one history record. */
export function toWatchEvent(record: HistoryRecord): WatchEvent {
  const revision = String(record.revision);
  if (record.type === 'deleted') {
    return { type: 'deleted', key: record.entry.key, previous: toKvPair(record.entry), revision };
  }
  return { type: record.type, kv: toKvPair(record.entry), revision };
}
