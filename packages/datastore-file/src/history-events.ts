import type { KVPair, WatchEvent } from '@netledger/ipam-core';
import { decodeStoredValue } from './decoded-value.js';
import type { HistoryRecord, StoredEntry } from './store-snapshot.js';

/**
 * A stored entry as a fresh `KVPair`: its value decoded once per entry, each caller getting its
 * own copy, so no caller can change what is cached.
 */
export function toKvPair(entry: StoredEntry): KVPair {
  return {
    key: entry.key,
    value: decodeStoredValue(entry) as KVPair['value'],
    revision: String(entry.modRevision),
    uid: entry.uid,
  };
}

/**
 * A `KVPair` whose value is decoded when first read, then kept: every write is published to the
 * watch hub, and most of its events (blocks, handles) match no open watch, so decoding them all
 * at once would cost a long-lived process (the node agent) a block decode per write for nothing.
 * The decoded value is kept in a closure behind a getter that never redefines itself, so the pair
 * can be frozen (the read mirror deep-freezes what it keeps) and every read gives the same value.
 */
function lazyKvPair(entry: StoredEntry): KVPair {
  const kv = { key: entry.key, revision: String(entry.modRevision), uid: entry.uid } as KVPair;
  let decoded: { readonly value: KVPair['value'] } | undefined;
  Object.defineProperty(kv, 'value', {
    enumerable: true,
    get() {
      decoded ??= { value: decodeStoredValue(entry) as KVPair['value'] };
      return decoded.value;
    },
  });
  return kv;
}

/** The watch event for one history record; its value is decoded when first read. */
export function toWatchEvent(record: HistoryRecord): WatchEvent {
  const revision = String(record.revision);
  if (record.type === 'deleted') {
    return { type: 'deleted', key: record.entry.key, previous: lazyKvPair(record.entry), revision };
  }
  return { type: record.type, kv: lazyKvPair(record.entry), revision };
}
