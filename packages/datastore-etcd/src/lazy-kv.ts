import type { EtcdKv, KvWatch } from './etcd-kv.js';

/**
 * An `EtcdKv` that creates the real one with `load` on first use, so the module that `load`
 * imports is evaluated only then. A failed load fails that call (and the next tries again).
 * `close()` closes the real one once it exists.
 */
export function createLazyKv(load: () => Promise<EtcdKv>): EtcdKv {
  let loading: Promise<EtcdKv> | undefined;
  let closed = false;
  const kv = (): Promise<EtcdKv> => {
    if (loading) return loading;
    const pending = load();
    loading = pending;
    pending.catch(() => {
      if (loading === pending) loading = undefined;
    });
    return pending;
  };

  return {
    range: async (req) => (await kv()).range(req),
    txn: async (req) => (await kv()).txn(req),
    put: async (req) => (await kv()).put(req),
    watch(req, handlers) {
      let inner: KvWatch | undefined;
      let canceled = false;
      kv().then(
        (loaded) => {
          if (!canceled) inner = loaded.watch(req, handlers);
        },
        (e: unknown) => {
          if (!canceled) handlers.onCanceled(e);
        },
      );
      return {
        cancel() {
          canceled = true;
          inner?.cancel();
        },
      };
    },
    close() {
      if (closed) return;
      closed = true;
      void loading?.then(
        (loaded) => loaded.close(),
        () => undefined,
      );
    },
  };
}
