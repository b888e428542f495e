// A Datastore whose implementation is known only after an asynchronous step (the Kubernetes store's:
// which Calico API group the server has). Every call waits for it, then is the implementation's;
// a watch is returned at once and starts when the implementation is there.
import type { Datastore, WatchStream } from '@netledger/ipam-core';

/**
 * A Datastore that runs each call on `open()`'s Datastore. `open` is called for every call: it
 * memoizes (and, to try again later, forgets a failure); its rejection is the call's. A watch's
 * `established` resolves when the inner watch is established or `open` fails (never rejects), and
 * iteration then throws the failure. `close` is the given one, and closes watches not yet open.
 */
export function deferDatastore(o: {
  readonly open: () => Promise<Datastore>;
  readonly close: () => Promise<void>;
}): Datastore {
  const { open } = o;
  return {
    create: async (kv) => (await open()).create(kv),
    update: async (kv) => (await open()).update(kv),
    apply: async (kv) => (await open()).apply(kv),
    delete: async (key, options) => (await open()).delete(key, options),
    get: async (key) => (await open()).get(key),
    list: async (options) => (await open()).list(options),
    async listMany(many) {
      const ds = await open();
      if (ds.listMany) return ds.listMany(many);
      return Promise.all(many.map((options) => ds.list(options)));
    },
    watch: (options, watchOptions) =>
      deferredWatch(open().then((ds) => ds.watch(options, watchOptions))),
    async upgradeAffinityLabels(host) {
      await (await open()).upgradeAffinityLabels?.(host);
    },
    close: o.close,
  };
}

/** A WatchStream over the one `opening` resolves to; see {@link deferDatastore}. */
function deferredWatch(opening: Promise<WatchStream>): WatchStream {
  let closed = false;
  let inner: WatchStream | undefined;
  const opened = opening.then((stream) => {
    inner = stream;
    if (closed) stream.close();
    return stream;
  });
  return {
    established: opened.then(
      (stream) => stream.established,
      () => undefined,
    ),
    close() {
      closed = true;
      inner?.close();
    },
    async *[Symbol.asyncIterator]() {
      const stream = await opened;
      if (closed) return;
      yield* stream;
    },
  };
}
