import { IpamError } from '@netledger/ipam-core';
import { listPrefixes } from '@netledger/ipam-core/adapter';
import type { ListOptions, WatchOptions, WatchStream } from '@netledger/ipam-core';
import type { KvWatch } from './etcd-kv.js';
import type { EtcdSession } from './etcd-session.js';
import { classifyEtcdError, toIpamError } from './map-etcd-error.js';
import { coveringRange } from './prefix-range.js';
import type { KeyRange } from './prefix-range.js';
import { WatchLostError, watchReconnectPolicy } from './watch-reconnect-policy.js';
import { createWatchQueue } from './watch-queue.js';
import type { WatchQueue } from './watch-queue.js';
import { takeWatchResponse } from './watch-response.js';

/** A watch the datastore can end when it closes. */
export interface EtcdWatch extends WatchStream {
  /** Ends iteration without an error. */
  end(): void;
}

/** What every stream of one watch shares. */
interface WatchContext {
  readonly session: EtcdSession;
  readonly range: KeyRange;
  readonly options: ListOptions;
  readonly queue: WatchQueue;
  /** The last revision delivered; undefined until the watch is established. */
  after: bigint | undefined;
  readonly markEstablished: () => void;
}

/**
 * Why etcd canceled a stream: a compacted start revision (`WatchExpired`), a transient failure
 * (`WatchLostError`: resume), or `err` itself. etcd 3.4 cancels a compacted watch without a
 * reason, so the start revision is probed to tell.
 */
async function whyCanceled(ctx: WatchContext, err: unknown): Promise<Error> {
  const { session, range, after } = ctx;
  try {
    await session.kv.range({
      key: range.start,
      range_end: range.end,
      limit: 1,
      keys_only: true,
      revision: String((after ?? 0n) + 1n),
    });
  } catch (e) {
    const message = (e as Error).message;
    if (classifyEtcdError(e) === 'compacted') {
      return new IpamError(
        'WatchExpired',
        `watch revision ${after} has been compacted: ${message}`,
        {
          cause: e,
        },
      );
    }
    if (classifyEtcdError(e) === 'retry' || /future revision/.test(message)) {
      return new WatchLostError(false, { cause: e });
    }
  }
  return toIpamError(err, { endpoints: session.label });
}

/** The store revision now, from which a watch without a start revision delivers changes. */
async function establish(ctx: WatchContext): Promise<bigint> {
  const { session, range } = ctx;
  try {
    const res = await session.retrying(() =>
      session.kv.range({ key: range.start, range_end: range.end, count_only: true }),
    );
    return BigInt(res.header.revision);
  } catch (e) {
    throw toIpamError(e, { endpoints: session.label });
  }
}

/**
 * Runs one etcd watch stream from the revision after the last one delivered, queueing what it
 * delivers. Resolves once `signal` aborts; rejects `WatchLostError` when the stream is lost (or
 * canceled for a transient reason), and an `IpamError` that ends the watch otherwise.
 */
async function runWatchStream(ctx: WatchContext, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return;
  if (ctx.after === undefined) {
    ctx.after = await establish(ctx);
    ctx.markEstablished();
    if (signal.aborted) return;
  }
  const { session, range } = ctx;
  await new Promise<void>((resolve, reject) => {
    let done = false;
    let progressed = false;
    /** No handler acts after this: the stream is over for this attempt. */
    const finish = (): boolean => {
      if (done) return false;
      done = true;
      signal.removeEventListener('abort', onAbort);
      w.cancel();
      return true;
    };
    const onAbort = (): void => {
      if (finish()) resolve();
    };
    const lost = (cause: unknown): WatchLostError => new WatchLostError(progressed, { cause });
    // The handlers find the watch through `w`, assigned before any response can arrive.
    const w: KvWatch = session.kv.watch(
      {
        key: range.start,
        range_end: range.end,
        start_revision: String(ctx.after! + 1n),
        prev_kv: true,
      },
      {
        onResponse: (res) => {
          if (done) return;
          const taken = takeWatchResponse(res, ctx.after, ctx.options);
          ctx.queue.push(taken.events);
          ctx.after = taken.after;
          if (taken.error !== undefined) {
            if (finish()) reject(toIpamError(taken.error, { endpoints: session.label }));
            return;
          }
          progressed = true;
        },
        onDisconnected: (err) => {
          if (finish()) reject(lost(err));
        },
        onCanceled: (err) => {
          if (!finish()) return;
          void whyCanceled(ctx, err).then((e) => reject(e instanceof WatchLostError ? lost(e) : e));
        },
      },
    );
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Watches the keys a list with `options` returns, delivering changes strictly after
 * `watchOptions.revision` (default: the store revision when the watch is established), in revision
 * order. After a lost connection it reconnects with backoff (watch-reconnect-policy.ts) and resumes
 * after the last revision it delivered, so no event is lost or repeated. It throws `WatchExpired`
 * when that revision has been compacted, and `CorruptValue` (naming the key) for a value that is
 * not valid Calico JSON. It keeps retrying while etcd is unreachable; end it with `close()` or the
 * signal.
 */
export function openEtcdWatch(
  session: EtcdSession,
  options: ListOptions,
  watchOptions: WatchOptions = {},
): EtcdWatch {
  const range = coveringRange(listPrefixes(options));
  let markEstablished!: () => void;
  const established = new Promise<void>((resolve) => (markEstablished = resolve));
  if (watchOptions.revision !== undefined) markEstablished();
  const stop = new AbortController();
  const end = (): void => {
    markEstablished();
    stop.abort();
    queue.end();
  };
  const queue = createWatchQueue(end);

  if (watchOptions.signal?.aborted) end();
  watchOptions.signal?.addEventListener('abort', end, { once: true });
  if (range) {
    const ctx: WatchContext = {
      session,
      range,
      options,
      queue,
      after: watchOptions.revision === undefined ? undefined : BigInt(watchOptions.revision),
      markEstablished,
    };
    watchReconnectPolicy()
      .execute(({ signal }) => runWatchStream(ctx, signal), stop.signal)
      .catch((e: unknown) => {
        // A lost stream ends the policy only once the watch is stopped: nothing to report then.
        if (!(e instanceof WatchLostError)) {
          queue.fail(e instanceof IpamError ? e : toIpamError(e, { endpoints: session.label }));
        }
        end();
      });
  }
  return {
    established,
    end,
    close: end,
    [Symbol.asyncIterator]: () => queue[Symbol.asyncIterator](),
  };
}
