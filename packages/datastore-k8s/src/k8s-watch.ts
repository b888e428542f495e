// A Datastore watch on the Kubernetes watch API: bookmarks keep the resume point fresh, a stream
// the server ends (its watch timeout) or a dropped connection resumes from the last revision seen
// (reconnects: open-watch-stream.ts), and 410 Gone (the revision was compacted) ends iteration
// with `WatchExpired`.
import type { KVPair, WatchEvent, WatchOptions, WatchStream } from '@netledger/ipam-core';
import { IpamError } from '@netledger/ipam-core';
import { parseJson } from '@netledger/ipam-core/adapter';
import type { JsonObject } from './ipam-crd-codec.js';
import type { KubeHttp } from './kube-http.js';
import type { KubeStream } from './kube-stream.js';
import { kubeStatusError } from './map-kube-error.js';
import { openWatchStream } from './open-watch-stream.js';
import { createWatchItemQueue } from './watch-item-queue.js';
import { createWatchTranslator } from './watch-translator.js';

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

const isObject = (v: unknown): v is JsonObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const revisionOf = (o: JsonObject): string | undefined => {
  const m = o.metadata;
  return isObject(m) && typeof m.resourceVersion === 'string' ? m.resourceVersion : undefined;
};

/** Where a running watch is: the revision to resume from. */
interface WatchPosition {
  revision: string;
}

/**
 * Reads `stream`'s events into `report`, moving `at.revision` along (bookmarks too). Resolves
 * `ended` when the server ends the stream, `dropped` when the connection breaks (or the watch is
 * closed); rejects with the `IpamError` of an `ERROR` event (410 Gone: `WatchExpired`).
 */
async function readStream(
  stream: KubeStream,
  o: {
    readonly src: WatchSource;
    readonly at: WatchPosition;
    readonly report: (type: string, kv: KVPair, revision: string) => void;
    readonly ctx: { server: string; method: string; object: string };
  },
): Promise<'ended' | 'dropped'> {
  try {
    for await (const line of stream.lines) {
      const ev = parseJson(line);
      if (!isObject(ev) || typeof ev.type !== 'string' || !isObject(ev.object)) continue;
      const object = ev.object;
      if (ev.type === 'ERROR') {
        const code = typeof object.code === 'number' ? object.code : 500;
        throw kubeStatusError(code, object, o.ctx);
      }
      o.at.revision = revisionOf(object) ?? o.at.revision;
      if (ev.type === 'BOOKMARK') continue;
      const kv = o.src.decode(object);
      if (kv) o.report(ev.type, kv, revisionOf(object) ?? o.at.revision);
    }
    return 'ended';
  } catch (e) {
    if (e instanceof IpamError) throw e;
    return 'dropped';
  }
}

/** Starts a watch on `src` from `options.revision` (else from now). */
export function createK8sWatch(src: WatchSource, options: WatchOptions = {}): WatchStream {
  const items = createWatchItemQueue();
  const closing = new AbortController();
  let abortStream: (() => void) | undefined;
  let markEstablished!: () => void;
  const established = new Promise<void>((resolve) => {
    markEstablished = resolve;
  });
  const close = (): void => {
    if (closing.signal.aborted) return;
    closing.abort();
    abortStream?.();
    markEstablished();
    items.push({ done: true });
  };
  options.signal?.addEventListener('abort', close, { once: true });
  if (options.signal?.aborted) close();

  const translate = createWatchTranslator(src.softDelete);
  const ctx = { server: src.http.server, method: 'WATCH', object: src.resource };
  const report = (type: string, kv: KVPair, revision: string): void => {
    const event = translate(type, kv, revision);
    if (event) items.push({ event });
  };
  const open = (at: WatchPosition): Promise<KubeStream> =>
    src.http.stream({
      path: src.path,
      query: {
        watch: '1',
        resourceVersion: at.revision,
        allowWatchBookmarks: 'true',
        labelSelector: src.labelSelector,
        timeoutSeconds: src.timeoutSeconds === undefined ? undefined : String(src.timeoutSeconds),
      },
    });

  async function run(): Promise<void> {
    const at = { revision: options.revision ?? (await src.currentRevision()) };
    // Consecutive failures: a dropped stream is one, reconnected at once; an established one resets.
    let failures = 0;
    while (!closing.signal.aborted) {
      const stream = await openWatchStream(() => open(at), {
        failures,
        signal: closing.signal,
        ctx,
      });
      if (!stream) return;
      abortStream = () => stream.abort();
      if (closing.signal.aborted) stream.abort();
      markEstablished();
      const how = await readStream(stream, { src, at, report, ctx });
      failures = how === 'dropped' ? 1 : 0;
    }
  }

  run().then(
    () => items.push({ done: true }),
    (error: unknown) => {
      markEstablished();
      items.push({ error });
    },
  );

  return {
    established,
    close,
    [Symbol.asyncIterator]: (): AsyncGenerator<WatchEvent> =>
      items.iterate({ isClosed: () => closing.signal.aborted, onEnd: close }),
  };
}
