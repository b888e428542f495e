import { IpamError } from '@netledger/ipam-core';
import { listPrefixes, matchesListOptions, pathToKey } from '@netledger/ipam-core/adapter';
import type {
  KVPair,
  ListOptions,
  WatchEvent,
  WatchOptions,
  WatchStream,
} from '@netledger/ipam-core';
import type { KvEvent, KvWatch, KvWatchResponse } from './etcd-kv.js';
import type { EtcdSession } from './etcd-session.js';
import { classifyEtcdError, toIpamError } from './map-etcd-error.js';
import { prefixRange } from './prefix-range.js';
import { toKvPair } from './to-kv-pair.js';

/** A watch the datastore can end when it closes. */
export interface EtcdWatch extends WatchStream {
  /** Ends iteration without an error. */
  end(): void;
}

const MAX_BACKOFF_MS = 2000;

/** The smallest range covering every prefix (the watch filters what it delivers). */
function coveringRange(prefixes: string[]): { start: Buffer; end: Buffer } | undefined {
  const ranges = prefixes.map((p) => prefixRange(p));
  if (ranges.length === 0) return undefined;
  let { start, end } = ranges[0]!;
  for (const r of ranges) {
    if (Buffer.compare(r.start, start) < 0) start = r.start;
    if (Buffer.compare(r.end, end) > 0) end = r.end;
  }
  return { start, end };
}

/**
 * Watches the keys a list with `options` returns, delivering changes strictly after
 * `watchOptions.revision` (default: the store revision when the watch is established), in revision
 * order. After a lost connection it reconnects with backoff and resumes after the last revision it
 * delivered, so no event is lost or repeated. It throws `WatchExpired` when that revision has been
 * compacted, and `CorruptValue` (naming the key) for a value that is not valid Calico JSON. It
 * keeps retrying while etcd is unreachable; end it with `close()` or the signal.
 */
export function openEtcdWatch(
  session: EtcdSession,
  options: ListOptions,
  watchOptions: WatchOptions = {},
): EtcdWatch {
  const { kv: etcd } = session;
  const range = coveringRange(listPrefixes(options));
  let after = watchOptions.revision === undefined ? undefined : BigInt(watchOptions.revision);
  const queue: WatchEvent[] = [];
  let failure: IpamError | undefined;
  let ended = false;
  let wake: (() => void) | undefined;
  let watcher: KvWatch | undefined;
  let backoff = 50;
  let markEstablished!: () => void;
  const established = new Promise<void>((resolve) => (markEstablished = resolve));
  if (after !== undefined) markEstablished();

  const signal = (): void => {
    wake?.();
  };
  const detach = (w: KvWatch): void => {
    if (watcher === w) watcher = undefined;
    w.cancel();
  };
  const end = (): void => {
    ended = true;
    markEstablished();
    if (watcher) detach(watcher);
    signal();
  };
  const fail = (e: IpamError): void => {
    failure ??= e;
    end();
  };

  const toEvent = (ev: KvEvent): WatchEvent | undefined => {
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
  };

  const onData = (w: KvWatch, res: KvWatchResponse): void => {
    if (watcher !== w || ended) return;
    // etcd never splits a revision across responses, and a transaction puts several events at one
    // revision: compare with what earlier responses delivered, so none of them is taken for a replay.
    const delivered = after;
    for (const ev of res.events) {
      const revision = BigInt(ev.kv.mod_revision);
      if (delivered !== undefined && revision <= delivered) continue; // replayed after a reconnect
      try {
        const event = toEvent(ev);
        if (event) queue.push(event);
      } catch (e) {
        fail(toIpamError(e, { endpoints: session.label }));
        return;
      }
      after = revision;
    }
    // A progress notification: everything up to the header revision has been sent.
    if (res.events.length === 0 && res.header?.revision) {
      const revision = BigInt(res.header.revision);
      if (after === undefined || revision > after) after = revision;
    }
    backoff = 50;
    signal();
  };

  const scheduleConnect = (): void => {
    if (ended) return;
    setTimeout(() => void connect(), backoff);
    backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
  };
  const reconnect = (w: KvWatch): void => {
    if (watcher !== w) return;
    detach(w);
    scheduleConnect();
  };

  const onCanceled = async (w: KvWatch, err: unknown): Promise<void> => {
    if (watcher !== w || !range) return;
    detach(w);
    // etcd 3.4 cancels a compacted watch without a reason: probe the start revision to tell.
    try {
      await etcd.range({
        key: range.start,
        range_end: range.end,
        limit: 1,
        keys_only: true,
        revision: String((after ?? 0n) + 1n),
      });
    } catch (e) {
      if (classifyEtcdError(e) === 'compacted') {
        fail(
          new IpamError(
            'WatchExpired',
            `watch revision ${after} has been compacted: ${(e as Error).message}`,
            { cause: e },
          ),
        );
        return;
      }
      if (classifyEtcdError(e) === 'retry' || /future revision/.test((e as Error).message)) {
        scheduleConnect();
        return;
      }
    }
    fail(toIpamError(err, { endpoints: session.label }));
  };

  async function connect(): Promise<void> {
    if (ended || !range) return;
    if (after === undefined) {
      try {
        const res = await session.retrying(() =>
          etcd.range({ key: range.start, range_end: range.end, count_only: true }),
        );
        after = BigInt(res.header.revision);
        markEstablished();
      } catch (e) {
        fail(toIpamError(e, { endpoints: session.label }));
        return;
      }
      if (ended) return;
    }
    // The handlers find the watch through `w`, assigned before any response can arrive.
    const w: KvWatch = etcd.watch(
      {
        key: range.start,
        range_end: range.end,
        start_revision: String(after + 1n),
        prev_kv: true,
      },
      {
        onResponse: (res) => onData(w, res),
        onDisconnected: () => reconnect(w),
        onCanceled: (err) => void onCanceled(w, err),
      },
    );
    watcher = w;
  }

  if (watchOptions.signal?.aborted) end();
  watchOptions.signal?.addEventListener('abort', end, { once: true });
  void connect();

  return {
    established,
    end,
    close: end,
    async *[Symbol.asyncIterator]() {
      try {
        for (;;) {
          const next = queue.shift();
          if (next) {
            yield next;
            continue;
          }
          if (failure) throw failure;
          if (ended) return;
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
        }
      } finally {
        end();
      }
    },
  };
}
