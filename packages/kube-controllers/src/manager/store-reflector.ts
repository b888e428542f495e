import { setMaxListeners } from 'node:events';
import type {
  Datastore,
  DatastoreKey,
  KVPair,
  Kind,
  WatchEvent,
  WatchStream,
} from '@netledger/ipam-core';
import { isIpamError } from '@netledger/ipam-core';
import { handleAll, retry } from 'cockatiel';
import type { RetryPolicy } from 'cockatiel';
import type { Logger } from '../logger.js';
import { errorText } from '../logger.js';
import { createRelistBackoff } from './relist-backoff.js';

/** One change of the datastore, as a watch (or a re-list) delivers it. */
export type StoreChange =
  | { readonly type: 'put'; readonly kv: KVPair }
  | { readonly type: 'delete'; readonly key: DatastoreKey };

/** Options of {@link startStoreReflector}. */
export interface StoreReflectorOptions {
  readonly datastore: Datastore;
  readonly kinds: readonly Kind[];
  /** Receives every change in order, per kind; a re-list delivers puts and the deletes it implies. */
  readonly onChanges: (changes: readonly StoreChange[]) => void;
  readonly logger: Logger;
  /** Retry delay after a failed list or watch: doubled per failure, bounded (default 200 ms .. 10 s). */
  readonly retryBaseMs?: number;
  readonly retryMaxMs?: number;
}

/** A running reflector. */
export interface StoreReflector {
  /** Resolves once every kind has been listed (and its watch established) once. */
  readonly synced: Promise<void>;
  isSynced(): boolean;
  /** Stops every watch; no change is delivered after it resolves. */
  close(): Promise<void>;
}

const keyId = (key: DatastoreKey): string => JSON.stringify(key);

/**
 * Mirrors kinds of a datastore into a consumer, like a Kubernetes informer: list, then watch from
 * the list's revision; when the watch expires (`WatchExpired`: its revision was compacted) or
 * ends, list again and deliver the difference (deletes included); other failures are retried with
 * bounded backoff (a cockatiel retry policy, see {@link createRelistBackoff}). It never polls:
 * changes come from the store's watch.
 */
export function startStoreReflector(options: StoreReflectorOptions): StoreReflector {
  const controller = new AbortController();
  const signal = controller.signal;
  // One listener per kind's watch and per retry wait.
  setMaxListeners(4 * options.kinds.length + 10, signal);
  const baseMs = options.retryBaseMs ?? 200;
  const maxMs = options.retryMaxMs ?? 10_000;
  const pendingKinds = new Set(options.kinds);
  let resolveSynced!: () => void;
  const synced = new Promise<void>((r) => (resolveSynced = r));
  if (pendingKinds.size === 0) resolveSynced();
  const streams = new Set<WatchStream>();

  const aborted = new Promise<void>((resolve) =>
    signal.addEventListener('abort', () => resolve(), { once: true }),
  );

  /** One list and the watch that follows it, until the watch ends; throws what fails. */
  async function session(kind: Kind, known: Set<string>, established: () => void): Promise<void> {
    if (signal.aborted) return;
    const list = await options.datastore.list({ kind });
    if (signal.aborted) return;
    const changes = relist(list.items, known);
    const stream = options.datastore.watch({ kind }, { revision: list.revision, signal });
    streams.add(stream);
    try {
      // A stream closed before it is established may never say so: stop waiting on abort.
      await Promise.race([stream.established, aborted]);
      if (signal.aborted) return;
      options.onChanges(changes);
      if (pendingKinds.delete(kind) && pendingKinds.size === 0) resolveSynced();
      established();
      await relay(stream, { aborted, signal, known, onChanges: options.onChanges });
    } finally {
      streams.delete(stream);
      stream.close();
    }
    if (!signal.aborted)
      options.logger.log('info', 'datastore watch ended; listing again', { kind });
  }

  async function run(kind: Kind): Promise<void> {
    const known = new Set<string>();
    let watches = 0;
    const policy = relistPolicy({ kind, baseMs, maxMs, logger: options.logger }, () => watches);
    while (!signal.aborted) {
      const attempts = policy.execute(() => session(kind, known, () => watches++), signal);
      // After close the last failure is cockatiel's to give up on; nobody waits for it.
      attempts.catch(() => undefined);
      await Promise.race([attempts, aborted]);
    }
  }

  const runs = options.kinds.map((k) => run(k));
  return {
    synced,
    isSynced: () => pendingKinds.size === 0,
    async close() {
      controller.abort();
      for (const s of streams) s.close();
      await Promise.allSettled(runs);
    },
  };
}

/**
 * The retry policy of one kind's list/watch: every failure retried (cockatiel's `retry`) after a
 * {@link createRelistBackoff} delay, each logged. Its waits are unref'd: close does not wait for
 * one, and the attempt it then starts returns at once.
 */
function relistPolicy(
  args: { kind: Kind; baseMs: number; maxMs: number; logger: Logger },
  establishedCount: () => number,
): RetryPolicy {
  const { kind, logger } = args;
  const expired = (e: Error): boolean => isIpamError(e, 'WatchExpired');
  const policy = retry(handleAll, {
    maxAttempts: Infinity,
    backoff: createRelistBackoff({ ...args, isImmediate: expired, establishedCount }),
  }).dangerouslyUnref();
  policy.onRetry((r) => {
    if (!('error' in r)) return;
    if (expired(r.error))
      logger.log('info', 'datastore watch expired (compacted); listing again', { kind });
    else
      logger.log('warn', 'datastore list/watch failed; retrying', {
        kind,
        retryInMs: r.delay,
        error: errorText(r.error),
      });
  });
  return policy;
}

/**
 * The changes a fresh list means to a consumer that knew `known`: every listed object put, every
 * known one not listed deleted. `known` becomes the listed keys.
 */
function relist(items: readonly KVPair[], known: Set<string>): StoreChange[] {
  const seen = new Set<string>();
  const changes: StoreChange[] = [];
  for (const kv of items) {
    seen.add(keyId(kv.key));
    changes.push({ type: 'put', kv });
  }
  for (const id of known) {
    if (!seen.has(id)) changes.push({ type: 'delete', key: JSON.parse(id) as DatastoreKey });
  }
  known.clear();
  for (const id of seen) known.add(id);
  return changes;
}

/** Delivers a watch's events one by one, keeping `known` in step, until it ends or aborts. */
async function relay(
  stream: WatchStream,
  args: {
    readonly aborted: Promise<void>;
    readonly signal: AbortSignal;
    readonly known: Set<string>;
    readonly onChanges: (changes: readonly StoreChange[]) => void;
  },
): Promise<void> {
  const { known, onChanges, signal } = args;
  const events = stream[Symbol.asyncIterator]();
  const stop = args.aborted.then((): IteratorResult<WatchEvent> => ({
    done: true,
    value: undefined,
  }));
  for (;;) {
    const next = await Promise.race([events.next(), stop]);
    if (next.done || signal.aborted) break;
    const ev = next.value;
    if (ev.type === 'deleted') {
      known.delete(keyId(ev.key));
      onChanges([{ type: 'delete', key: ev.key }]);
    } else {
      known.add(keyId(ev.kv.key));
      onChanges([{ type: 'put', kv: ev.kv }]);
    }
  }
}
