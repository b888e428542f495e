import type { Datastore } from '@netledger/ipam-core';
import type { EtcdKv, EtcdKvOptions } from './etcd-kv.js';
import { createEtcdReads } from './etcd-reads.js';
import { createEtcdSession } from './etcd-session.js';
import { createEtcdTransact } from './etcd-transact.js';
import { openEtcdWatch } from './etcd-watch.js';
import type { EtcdWatch } from './etcd-watch.js';
import { createEtcdWrites } from './etcd-writes.js';

/** A Datastore on etcd v3 (what `createEtcdDatastore` returns). */
export type EtcdDatastore = Datastore;

/**
 * The etcd Datastore over one transport: reads, compare-and-swap writes (single, or several in one
 * etcd transaction with `transact`) and watches share one session (its retry policy and error
 * mapping). `close()` ends every watch, then the transport.
 */
export function createDatastoreOnKv(kv: EtcdKv, options: EtcdKvOptions): EtcdDatastore {
  const session = createEtcdSession({
    kv,
    endpoints: options.endpoints,
    dialTimeoutMs: options.dialTimeoutMs,
  });
  const reads = createEtcdReads(session);
  const writes = createEtcdWrites(session);
  const transact = createEtcdTransact(session);
  const watches = new Set<EtcdWatch>();

  return {
    create: (pair) => writes.create(pair),
    update: (pair) => writes.update(pair),
    apply: (pair) => writes.apply(pair),
    delete: (key, deleteOptions) => writes.delete(key, deleteOptions),
    transact: (txWrites) => transact(txWrites),
    get: (key) => reads.get(key),
    list: (listOptions) => reads.list(listOptions),
    listMany: (listOptions) => reads.listMany(listOptions),
    watch(listOptions, watchOptions) {
      session.assertOpen();
      const watch = openEtcdWatch(session, listOptions, watchOptions);
      watches.add(watch);
      return {
        ...watch,
        close: () => {
          watches.delete(watch);
          watch.end();
        },
      };
    },
    async close() {
      for (const w of watches) w.end();
      watches.clear();
      session.close();
    },
  };
}
