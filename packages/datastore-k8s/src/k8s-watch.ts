// A Datastore watch on the Kubernetes watch API: bookmarks keep the resume point fresh, a stream
// the server ends (its watch timeout) or a dropped connection resumes from the last revision seen,
// and 410 Gone (the revision was compacted) ends iteration with `WatchExpired`.
import type {
  DatastoreKey,
  KVPair,
  WatchEvent,
  WatchOptions,
  WatchStream,
} from '@netledger/ipam-core';
import { IpamError } from '@netledger/ipam-core';
import { parseJson } from '@netledger/ipam-core/adapter';
import type { JsonObject } from './ipam-crd-codec.js';
import type { KubeHttp } from './kube-http.js';
import { kubeStatusError, kubeTransportError } from './map-kube-error.js';

/** What a watch needs to know about the collection it watches. */
export interface WatchSource {
  readonly http: KubeHttp;
  readonly path: string;
  /** e.g. `ipamblocks`, for messages. */
  readonly resource: string;
  readonly labelSelector?: string;
  /** Blocks, affinities, handles: an update to `deleted: true` is the delete. */
  readonly softDelete: boolean;
  /** Asks the server to end each watch request after this long (tests of resume); default: its own. */
  readonly timeoutSeconds?: number;
  /** The KVPair of an object, or undefined when it is not one this watch reports. */
  decode(object: JsonObject): KVPair | undefined;
  /** The current revision, for a watch "from now". */
  currentRevision(): Promise<string>;
}

/**
 * Consecutive failed reconnects (no connection, or a 429/5xx answer) after which the watch gives
 * up with `Unavailable`.
 */
const MAX_RECONNECTS = 6;

const isObject = (v: unknown): v is JsonObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const revisionOf = (o: JsonObject): string | undefined => {
  const m = o.metadata;
  return isObject(m) && typeof m.resourceVersion === 'string' ? m.resourceVersion : undefined;
};

const deletedFlag = (kv: KVPair): boolean => (kv.value as { deleted?: unknown }).deleted === true;

type Item = { event: WatchEvent } | { error: unknown } | { done: true };

/** Starts a watch on `src` from `options.revision` (else from now). */
export function createK8sWatch(src: WatchSource, options: WatchOptions = {}): WatchStream {
  const queue: Item[] = [];
  let wake: (() => void) | undefined;
  let closed = false;
  let abortStream: (() => void) | undefined;
  let markEstablished!: () => void;
  const established = new Promise<void>((resolve) => {
    markEstablished = resolve;
  });
  const push = (item: Item): void => {
    queue.push(item);
    wake?.();
  };
  const close = (): void => {
    if (closed) return;
    closed = true;
    abortStream?.();
    markEstablished();
    push({ done: true });
  };
  options.signal?.addEventListener('abort', close, { once: true });
  if (options.signal?.aborted) close();

  // Soft-deleted objects already reported deleted, by uid: their hard delete is not reported again.
  const reported = new Set<string>();
  const ctx = { server: src.http.server, method: 'WATCH', object: src.resource };

  function translate(type: string, kv: KVPair, revision: string): WatchEvent | undefined {
    const uid = kv.uid ?? '';
    if (type === 'DELETED') {
      if (reported.delete(uid)) return undefined;
      return { type: 'deleted', key: kv.key as DatastoreKey, previous: kv, revision };
    }
    if (src.softDelete && deletedFlag(kv)) {
      if (reported.has(uid)) return undefined;
      reported.add(uid);
      return type === 'ADDED'
        ? undefined
        : { type: 'deleted', key: kv.key as DatastoreKey, previous: kv, revision };
    }
    return { type: type === 'ADDED' ? 'added' : 'modified', kv, revision };
  }

  async function run(): Promise<void> {
    let revision = options.revision ?? (await src.currentRevision());
    let failures = 0;
    while (!closed) {
      let stream;
      try {
        stream = await src.http.stream({
          path: src.path,
          query: {
            watch: '1',
            resourceVersion: revision,
            allowWatchBookmarks: 'true',
            labelSelector: src.labelSelector,
            timeoutSeconds:
              src.timeoutSeconds === undefined ? undefined : String(src.timeoutSeconds),
          },
        });
      } catch (e) {
        if (closed) return;
        if (e instanceof IpamError) throw e; // the datastore was closed
        if (++failures > MAX_RECONNECTS) throw kubeTransportError(e, { ...ctx, write: false });
        await new Promise((r) => setTimeout(r, 100 * 2 ** failures));
        continue;
      }
      if (stream.status !== 200) {
        const error = kubeStatusError(stream.status, stream.body, ctx);
        // 429 (throttled) and 5xx (an API server starting or overloaded: "please try again") are
        // answers to retry, as a connection failure is; anything else (410 Gone, 403) ends the watch.
        if (closed || !(stream.status === 429 || stream.status >= 500)) throw error;
        if (++failures > MAX_RECONNECTS) throw error;
        await new Promise((r) => setTimeout(r, 100 * 2 ** failures));
        continue;
      }
      abortStream = () => stream.abort();
      if (closed) stream.abort();
      markEstablished();
      failures = 0;
      try {
        for await (const line of stream.lines) {
          const ev = parseJson(line);
          if (!isObject(ev) || typeof ev.type !== 'string' || !isObject(ev.object)) continue;
          const object = ev.object;
          if (ev.type === 'ERROR') {
            const code = typeof object.code === 'number' ? object.code : 500;
            throw kubeStatusError(code, object, ctx);
          }
          revision = revisionOf(object) ?? revision;
          if (ev.type === 'BOOKMARK') continue;
          const kv = src.decode(object);
          if (!kv) continue;
          const event = translate(ev.type, kv, revisionOf(object) ?? revision);
          if (event) push({ event });
        }
      } catch (e) {
        if (e instanceof IpamError) throw e;
        if (closed) return;
        // The connection dropped mid-stream: resume from the last revision seen.
        if (++failures > MAX_RECONNECTS) throw kubeTransportError(e, { ...ctx, write: false });
      }
    }
  }

  run().then(
    () => push({ done: true }),
    (error: unknown) => {
      markEstablished();
      push({ error });
    },
  );

  async function* iterate(): AsyncGenerator<WatchEvent> {
    try {
      for (;;) {
        const item = queue.shift();
        if (!item) {
          await new Promise<void>((r) => {
            wake = r;
          });
          wake = undefined;
          continue;
        }
        if ('done' in item) return;
        if ('error' in item) throw item.error;
        if (closed) return;
        yield item.event;
      }
    } finally {
      close();
    }
  }

  return {
    established,
    close,
    [Symbol.asyncIterator]: () => iterate(),
  };
}
