import type { Datastore } from './datastore.js';

/**
 * Every call of `inner`, passed straight on: the base a wrapper spreads and then overrides the
 * calls it changes. The optional calls (`listMany`, `transact`, `upgradeAffinityLabels`) are there
 * exactly when `inner` has them, so a wrapper never hides a capability of the store it wraps.
 */
export function forwardingDatastore(inner: Datastore): Datastore {
  const listMany = inner.listMany?.bind(inner);
  const transact = inner.transact?.bind(inner);
  const upgrade = inner.upgradeAffinityLabels?.bind(inner);
  return {
    create: (kv) => inner.create(kv),
    update: (kv) => inner.update(kv),
    apply: (kv) => inner.apply(kv),
    delete: (key, options) => inner.delete(key, options),
    get: (key) => inner.get(key),
    list: (options) => inner.list(options),
    watch: (options, watchOptions) => inner.watch(options, watchOptions),
    close: () => inner.close(),
    ...(listMany && { listMany }),
    ...(transact && { transact }),
    ...(upgrade && { upgradeAffinityLabels: upgrade }),
  };
}
