import { matchesListOptions, pathToKey } from '@netledger/ipam-core/adapter';
import type { KVPair, ListOptions, WatchEvent } from '@netledger/ipam-core';
import type { KvEvent, KvWatchResponse } from './etcd-kv.js';
import { toKvPair } from './to-kv-pair.js';

/** One etcd event as the watch delivers it; undefined for a key the list options do not match. */
function toWatchEvent(ev: KvEvent, options: ListOptions): WatchEvent | undefined {
  const key = pathToKey(ev.kv.key.toString('utf8'));
  if (!key || !matchesListOptions(key, options)) return undefined;
  const revision = ev.kv.mod_revision;
  if (ev.type.toLowerCase() === 'delete') {
    let previous: KVPair | undefined;
    try {
      previous = ev.prev_kv ? toKvPair(key, ev.prev_kv) : undefined;
    } catch {
      previous = undefined; // a corrupt old value does not hide the delete itself
    }
    return { type: 'deleted', key, ...(previous && { previous }), revision };
  }
  return {
    type: ev.kv.version === '1' ? 'added' : 'modified',
    kv: toKvPair(key, ev.kv),
    revision,
  };
}

/** What one watch response delivers. */
export interface TakenResponse {
  /** The events to deliver, in order. */
  readonly events: WatchEvent[];
  /** The last revision delivered (or covered by a progress notification). */
  readonly after: bigint | undefined;
  /** A value that could not be decoded: delivery stops before it, and the watch fails with it. */
  readonly error?: unknown;
}

/**
 * The events of `res` strictly after revision `after` (events at or below it are replays after a
 * reconnect), and the revision delivered up to. Pure; a corrupt value ends the batch with `error`.
 */
export function takeWatchResponse(
  res: KvWatchResponse,
  after: bigint | undefined,
  options: ListOptions,
): TakenResponse {
  // etcd never splits a revision across responses, and a transaction puts several events at one
  // revision: compare with what earlier responses delivered, so none of them is taken for a replay.
  const delivered = after;
  const events: WatchEvent[] = [];
  for (const ev of res.events) {
    const revision = BigInt(ev.kv.mod_revision);
    if (delivered !== undefined && revision <= delivered) continue; // replayed after a reconnect
    try {
      const event = toWatchEvent(ev, options);
      if (event) events.push(event);
    } catch (e) {
      return { events, after, error: e };
    }
    after = revision;
  }
  // A progress notification: everything up to the header revision has been sent.
  if (res.events.length === 0 && res.header?.revision) {
    const revision = BigInt(res.header.revision);
    if (after === undefined || revision > after) after = revision;
  }
  return { events, after };
}
