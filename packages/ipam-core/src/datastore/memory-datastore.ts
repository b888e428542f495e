import { assertEncodedSize } from '../codec/encode-checked-value.js';
import { IpamError } from '../errors.js';
import type { DatastoreKey, Kind, ListOptions } from '../model/keys.js';
import { keyToPath, listPrefixes, matchesListOptions } from '../model/keys.js';
import { applyMutation } from './apply-mutation.js';
import { applyTransaction, toMutation } from './apply-transaction.js';
import type { EntryChange, Mutation, StoredEntry } from './apply-mutation.js';
import type {
  Datastore,
  DeleteOptions,
  KVPair,
  ListResult,
  NewKVPair,
  WatchEvent,
} from './datastore.js';
import { deepFreeze } from './deep-freeze.js';
import { SortedKeys } from './sorted-keys.js';
import { doesNotExistError } from './store-errors.js';
import { createWatchHub } from './watch-hub.js';

/**
 * Key and value deep-frozen: shared with every reader, and a caller that tries to mutate one gets
 * a TypeError.
 */
type Entry = StoredEntry<unknown>;

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
  const entries = new Map<string, Entry>();
  const index = new SortedKeys();
  let revision = 0;
  let closed = false;
  const hub = createWatchHub({ historyLimit: options.historyLimit ?? 10_000 });

  const open = (): void => {
    if (closed) throw new IpamError('Unavailable', 'datastore is closed');
  };
  const toKv = <K extends Kind>(e: Entry): KVPair<K> => ({
    key: e.key as DatastoreKey<K>,
    value: e.value as KVPair<K>['value'],
    revision: String(e.modRevision),
    uid: e.uid,
  });
  /** Records a change the shared CAS rules computed, and tells the watchers. */
  const record = (change: EntryChange<unknown>): void => {
    revision = change.revision;
    if (change.type === 'deleted') {
      entries.delete(change.path);
      index.delete(change.path);
      hub.publish({
        type: 'deleted',
        key: change.entry.key,
        previous: toKv(change.entry),
        revision: String(revision),
      });
      return;
    }
    deepFreeze(change.entry.key);
    deepFreeze(change.entry.value);
    if (!entries.has(change.path)) index.add(change.path);
    entries.set(change.path, change.entry);
    hub.publish({
      type: change.type,
      kv: toKv(change.entry),
      revision: String(revision),
    } satisfies WatchEvent);
  };
  /** Refuses a value no other store could hold (over Kubernetes' object size), before any change. */
  const checkSize = (mutation: Mutation<unknown>): void => {
    if (mutation.op !== 'delete') assertEncodedSize(mutation.key, mutation.value as never);
  };
  /** Applies one write with the shared CAS rules. */
  const commit = (mutation: Mutation<unknown>): EntryChange<unknown> => {
    checkSize(mutation);
    const change = applyMutation({ entries, revision }, mutation, {
      newUid: `uid-${revision + 1}`,
    });
    record(change);
    return change;
  };
  const listNow = <K extends Kind>(options: ListOptions<K>): ListResult<K> => {
    const items: KVPair<K>[] = [];
    // Prefixes are disjoint and listed in key order, so the result is in key order.
    for (const prefix of listPrefixes(options).sort()) {
      for (const p of index.withPrefix(prefix)) {
        const e = entries.get(p)!;
        if (matchesListOptions(e.key, options)) items.push(toKv(e));
      }
    }
    return { items, revision: String(revision) };
  };

  return {
    async create<K extends Kind>(kv: NewKVPair<K>): Promise<KVPair<K>> {
      open();
      return toKv(commit({ op: 'create', key: { ...kv.key }, value: kv.value }).entry);
    },
    async update<K extends Kind>(kv: KVPair<K>): Promise<KVPair<K>> {
      open();
      const { value, revision: expected } = kv;
      return toKv(commit({ op: 'update', key: { ...kv.key }, value, revision: expected }).entry);
    },
    async apply<K extends Kind>(kv: NewKVPair<K>): Promise<KVPair<K>> {
      open();
      return toKv(commit({ op: 'apply', key: { ...kv.key }, value: kv.value }).entry);
    },
    async delete(key: DatastoreKey, options: DeleteOptions = {}): Promise<void> {
      open();
      commit({ op: 'delete', key, ...options });
    },
    async transact(writes) {
      open();
      // Keys are copied before they are frozen, as the single writes do.
      const mutations = writes.map((w) => {
        const m = toMutation<unknown>(w, (x) => x.kv.value);
        return { ...m, key: { ...m.key } };
      });
      mutations.forEach(checkSize);
      // Every precondition is checked before the first change is recorded: all or nothing.
      const changes = applyTransaction({ entries, revision }, mutations, (r) => `uid-${r}`);
      for (const change of changes) record(change);
      return changes.map((c) => (c.type === 'deleted' ? undefined : toKv(c.entry)));
    },
    async get<K extends Kind>(key: DatastoreKey<K>): Promise<KVPair<K>> {
      open();
      const current = entries.get(keyToPath(key));
      if (!current) throw doesNotExistError(key);
      return toKv(current);
    },
    async list<K extends Kind>(options: ListOptions<K>): Promise<ListResult<K>> {
      open();
      return listNow(options);
    },
    async listMany(options) {
      open();
      // Synchronous, so every list sees the same revision.
      return options.map((o) => listNow(o));
    },
    watch(options, watchOptions = {}) {
      open();
      return hub.subscribe({
        matches: (key) => matchesListOptions(key, options),
        fromRevision:
          watchOptions.revision === undefined ? revision : Number(watchOptions.revision),
        ...(watchOptions.signal && { signal: watchOptions.signal }),
      });
    },
    async close() {
      closed = true;
      hub.closeAll();
    },
  };
}
