import type { Datastore } from '@netledger/ipam-core';

/**
 * `inner` with every request it is sent reported to `count` by operation name (`get`, `list`,
 * `listMany`, `create`, `update`, `apply`, `delete`, `transact`, `watch`) before it is made: the agent's
 * measure of what it costs the store (`netledger_node_datastore_requests_total`).
 */
export function countedDatastore(inner: Datastore, count: (operation: string) => void): Datastore {
  const listMany = inner.listMany?.bind(inner);
  const upgrade = inner.upgradeAffinityLabels?.bind(inner);
  const transact = inner.transact?.bind(inner);
  return {
    create: (kv) => (count('create'), inner.create(kv)),
    update: (kv) => (count('update'), inner.update(kv)),
    apply: (kv) => (count('apply'), inner.apply(kv)),
    delete: (key, options) => (count('delete'), inner.delete(key, options)),
    get: (key) => (count('get'), inner.get(key)),
    list: (options) => (count('list'), inner.list(options)),
    ...(listMany && { listMany: (options) => (count('listMany'), listMany(options)) }),
    ...(transact && { transact: (writes) => (count('transact'), transact(writes)) }),
    watch: (options, watchOptions) => (count('watch'), inner.watch(options, watchOptions)),
    ...(upgrade && {
      upgradeAffinityLabels: (host) => (count('upgradeAffinityLabels'), upgrade(host)),
    }),
    close: () => inner.close(),
  };
}
