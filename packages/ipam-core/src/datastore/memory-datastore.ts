import { IpamError } from '../errors.js';
import type { DatastoreKey, Kind, ListOptions } from '../model/keys.js';
import { matchesListOptions } from '../model/keys.js';
import { toMutation } from './apply-transaction.js';
import type { Datastore, DeleteOptions, KVPair, ListResult, NewKVPair } from './datastore.js';
import { createMemoryEntries } from './memory-entries.js';
import { doesNotExistError } from './store-errors.js';
import { createWatchHub } from './watch-hub.js';

/** Options for {@link createMemoryDatastore}. */
export interface MemoryDatastoreOptions {
  /** How many past events a watch can resume from (default 10,000). */
  readonly historyLimit?: number;
}

/**
 * An in-process Datastore with etcd semantics: a global revision, CAS on mod revision, key-ordered
 * lists, watch with history. Values are deep-frozen on write and shared with readers (no copies,
 * and the rule that nothing mutates a value read from the store is enforced at run time); the
 * codec is exercised by the file and etcd stores. A value whose Calico JSON is over Kubernetes'
 * object size (1.5 MiB) is refused `InvalidArgument`, as every other store refuses it.
 */
export function createMemoryDatastore(options: MemoryDatastoreOptions = {}): Datastore {
  const hub = createWatchHub({ historyLimit: options.historyLimit ?? 10_000 });
  const entries = createMemoryEntries(hub);
  let closed = false;
  const open = (): void => {
    if (closed) throw new IpamError('Unavailable', 'datastore is closed');
  };

  return {
    async create<K extends Kind>(kv: NewKVPair<K>): Promise<KVPair<K>> {
      open();
      return entries.commit<K>({ op: 'create', key: { ...kv.key }, value: kv.value })!;
    },
    async update<K extends Kind>(kv: KVPair<K>): Promise<KVPair<K>> {
      open();
      const { value, revision: expected } = kv;
      return entries.commit<K>({ op: 'update', key: { ...kv.key }, value, revision: expected })!;
    },
    async apply<K extends Kind>(kv: NewKVPair<K>): Promise<KVPair<K>> {
      open();
      return entries.commit<K>({ op: 'apply', key: { ...kv.key }, value: kv.value })!;
    },
    async delete(key: DatastoreKey, options: DeleteOptions = {}): Promise<void> {
      open();
      entries.commit({ op: 'delete', key, ...options });
    },
    async transact(writes) {
      open();
      // Keys are copied before they are frozen, as the single writes do.
      const mutations = writes.map((w) => {
        const m = toMutation<unknown>(w, (x) => x.kv.value);
        return { ...m, key: { ...m.key } };
      });
      return entries.commitAll(mutations);
    },
    async get<K extends Kind>(key: DatastoreKey<K>): Promise<KVPair<K>> {
      open();
      const current = entries.get(key);
      if (!current) throw doesNotExistError(key);
      return current;
    },
    async list<K extends Kind>(options: ListOptions<K>): Promise<ListResult<K>> {
      open();
      return entries.list(options);
    },
    async listMany(options) {
      open();
      // Synchronous, so every list sees the same revision.
      return options.map((o) => entries.list(o));
    },
    watch(options, watchOptions = {}) {
      open();
      return hub.subscribe({
        matches: (key) => matchesListOptions(key, options),
        fromRevision:
          watchOptions.revision === undefined ? entries.revision() : Number(watchOptions.revision),
        ...(watchOptions.signal && { signal: watchOptions.signal }),
      });
    },
    async close() {
      closed = true;
      hub.closeAll();
    },
  };
}
