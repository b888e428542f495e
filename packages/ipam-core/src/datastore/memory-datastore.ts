import { IpamError } from '../errors.js';
import type { DatastoreKey, Kind, ListOptions } from '../model/keys.js';
import { describeKey, keyToPath, listPrefixes, matchesListOptions } from '../model/keys.js';
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
import { createWatchHub } from './watch-hub.js';

interface Entry {
  readonly key: DatastoreKey;
  /** Deep-frozen: shared with every reader, and a caller that tries to mutate it gets a TypeError. */
  readonly value: unknown;
  readonly modRevision: number;
  readonly uid: string;
}

/** Options for {@link createMemoryDatastore}. */
export interface MemoryDatastoreOptions {
  /** How many past events a watch can resume from (default 10,000). */
  readonly historyLimit?: number;
}

/**
 * An in-process Datastore with etcd semantics: a global revision, CAS on mod revision, key-ordered
 * lists, watch with history. Values are deep-frozen on write and shared with readers (no copies,
 * and the rule that nothing mutates a value read from the store is enforced at run time); the
 * codec is exercised by the file and etcd stores.
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
  const put = (
    key: DatastoreKey,
    value: unknown,
    uid: string,
    type: 'added' | 'modified',
  ): Entry => {
    const entry: Entry = {
      key: deepFreeze({ ...key }),
      value: deepFreeze(value),
      modRevision: ++revision,
      uid,
    };
    const path = keyToPath(key);
    if (!entries.has(path)) index.add(path);
    entries.set(path, entry);
    hub.publish({ type, kv: toKv(entry), revision: String(revision) } satisfies WatchEvent);
    return entry;
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
  const missing = (key: DatastoreKey): IpamError =>
    new IpamError('DoesNotExist', `resource does not exist: ${describeKey(key)}`, {
      identifier: describeKey(key),
    });
  const conflict = (key: DatastoreKey): IpamError =>
    new IpamError('UpdateConflict', `update conflict: ${describeKey(key)}`, {
      identifier: describeKey(key),
    });

  return {
    async create<K extends Kind>(kv: NewKVPair<K>): Promise<KVPair<K>> {
      open();
      const path = keyToPath(kv.key);
      if (entries.has(path)) {
        throw new IpamError('AlreadyExists', `resource already exists: ${path}`, {
          identifier: path,
        });
      }
      return toKv(put(kv.key, kv.value, `uid-${revision + 1}`, 'added'));
    },
    async update<K extends Kind>(kv: KVPair<K>): Promise<KVPair<K>> {
      open();
      const current = entries.get(keyToPath(kv.key));
      if (!current) throw missing(kv.key);
      if (String(current.modRevision) !== kv.revision) throw conflict(kv.key);
      return toKv(put(kv.key, kv.value, current.uid, 'modified'));
    },
    async apply<K extends Kind>(kv: NewKVPair<K>): Promise<KVPair<K>> {
      open();
      const current = entries.get(keyToPath(kv.key));
      return toKv(
        put(
          kv.key,
          kv.value,
          current?.uid ?? `uid-${revision + 1}`,
          current ? 'modified' : 'added',
        ),
      );
    },
    async delete(key: DatastoreKey, options: DeleteOptions = {}): Promise<void> {
      open();
      const path = keyToPath(key);
      const current = entries.get(path);
      if (!current) throw missing(key);
      if (options.revision !== undefined && String(current.modRevision) !== options.revision)
        throw conflict(key);
      if (options.uid !== undefined && current.uid !== options.uid) throw conflict(key);
      entries.delete(path);
      index.delete(path);
      revision++;
      hub.publish({ type: 'deleted', key, previous: toKv(current), revision: String(revision) });
    },
    async get<K extends Kind>(key: DatastoreKey<K>): Promise<KVPair<K>> {
      open();
      const current = entries.get(keyToPath(key));
      if (!current) throw missing(key);
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
