import { IpamError } from '../errors.js';
import type { DatastoreKey, Kind, ListOptions } from '../model/keys.js';
import type { Datastore, KVPair, WatchEvent, WatchStream } from './datastore.js';

/** Datastore calls a {@link ControlledDatastore} counts. */
type CountedOperation = 'get' | 'list' | 'listMany' | 'create' | 'update' | 'delete';

/**
 * A store wrapper for mirror tests: watch events can be held back and let through one by one,
 * watches can be broken or ended, lists can be made to fail, and calls are counted.
 */
export interface ControlledDatastore extends Datastore {
  /** Holds watch events back (they queue in the store) until `resume` or `allow`. */
  pause(): void;
  resume(): void;
  /** Lets `n` more held events through. */
  allow(n: number): void;
  /** Events the watchers have taken and finished with (counted when they ask for the next). */
  readonly delivered: number;
  /** Makes every open watch (of one kind, if given) throw `error`; later watches work. */
  breakWatches(error: unknown, kind?: Kind): void;
  /** Ends every open watch (of one kind, if given) as if the store had. */
  endWatches(kind?: Kind): void;
  readonly openWatches: number;
  /** While true, `list` and `listMany` fail `Unavailable`. */
  failLists: boolean;
  /** Calls of `op`, for one kind (for `listMany`, calls that included it). */
  count(op: CountedOperation, kind: Kind): number;
  /** The kinds of every `listMany` call, in order. */
  readonly listManyCalls: Kind[][];
  readonly closed: boolean;
}

interface Deferred {
  promise: Promise<IteratorResult<WatchEvent>>;
  resolve(r: IteratorResult<WatchEvent>): void;
  reject(e: unknown): void;
}

function deferred(): Deferred {
  let resolve!: Deferred['resolve'];
  let reject!: Deferred['reject'];
  const promise = new Promise<IteratorResult<WatchEvent>>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => undefined); // raced later; never an unhandled rejection
  return { promise, resolve, reject };
}

/** Wraps `inner`; see {@link ControlledDatastore}. */
export function createControlledDatastore(inner: Datastore): ControlledDatastore {
  let budget = Number.POSITIVE_INFINITY;
  let wakers: (() => void)[] = [];
  let delivered = 0;
  let closed = false;
  const stops = new Map<Deferred, Kind>();
  const counts = new Map<string, number>();
  const listManyCalls: Kind[][] = [];
  const wake = (): void => {
    const w = wakers;
    wakers = [];
    for (const f of w) f();
  };
  /** Waits for budget; false if the stream stopped first (throws if it broke). */
  const gate = async (stop: Deferred): Promise<boolean> => {
    while (budget <= 0) {
      const woken = await Promise.race([
        new Promise<boolean>((r) => wakers.push(() => r(true))),
        stop.promise.then(() => false),
      ]);
      if (!woken) return false;
    }
    budget--;
    return true;
  };
  const bump = (op: CountedOperation, kind: Kind): void => {
    counts.set(`${op}:${kind}`, (counts.get(`${op}:${kind}`) ?? 0) + 1);
  };
  const failing = (): void => {
    if (store.failLists) throw new IpamError('Unavailable', 'injected: lists fail');
  };

  const store: ControlledDatastore = {
    failLists: false,
    get delivered() {
      return delivered;
    },
    get openWatches() {
      return stops.size;
    },
    get closed() {
      return closed;
    },
    listManyCalls,
    pause() {
      budget = 0;
    },
    resume() {
      budget = Number.POSITIVE_INFINITY;
      wake();
    },
    allow(n) {
      budget = (budget === Number.POSITIVE_INFINITY ? 0 : budget) + n;
      wake();
    },
    breakWatches(error, kind) {
      for (const [s, k] of [...stops]) if (kind === undefined || k === kind) s.reject(error);
    },
    endWatches(kind) {
      for (const [s, k] of [...stops])
        if (kind === undefined || k === kind) s.resolve({ done: true, value: undefined });
    },
    count: (op, kind) => counts.get(`${op}:${kind}`) ?? 0,
    create: (kv) => {
      bump('create', kv.key.kind);
      return inner.create(kv);
    },
    update: (kv) => {
      bump('update', kv.key.kind);
      return inner.update(kv);
    },
    apply: (kv) => inner.apply(kv),
    delete: (key, options) => {
      bump('delete', key.kind);
      return inner.delete(key, options);
    },
    get: <K extends Kind>(key: DatastoreKey<K>): Promise<KVPair<K>> => {
      bump('get', key.kind);
      return inner.get(key);
    },
    list: async (options) => {
      bump('list', options.kind);
      failing();
      return inner.list(options);
    },
    listMany: async (options: readonly ListOptions[]) => {
      for (const o of options) bump('listMany', o.kind);
      listManyCalls.push(options.map((o) => o.kind));
      failing();
      return inner.listMany!(options);
    },
    watch(options, watchOptions) {
      const source = inner.watch(options, watchOptions);
      const stop = deferred();
      stops.set(stop, options.kind);
      const close = (): void => {
        stop.resolve({ done: true, value: undefined });
        source.close();
      };
      const stream: WatchStream = {
        established: source.established,
        close,
        async *[Symbol.asyncIterator]() {
          const it = source[Symbol.asyncIterator]();
          try {
            for (;;) {
              const next = await Promise.race([it.next(), stop.promise]);
              if (next.done) return;
              if (!(await gate(stop))) return;
              yield next.value;
              delivered++;
            }
          } finally {
            stops.delete(stop);
            source.close();
          }
        },
      };
      return stream;
    },
    async close() {
      closed = true;
      await inner.close();
    },
  };
  return store;
}
