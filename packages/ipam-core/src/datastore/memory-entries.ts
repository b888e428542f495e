import { assertEncodedSize } from '../codec/encode-checked-value.js';
import type { DatastoreKey, Kind, ListOptions } from '../model/keys.js';
import { keyToPath, listPrefixes, matchesListOptions } from '../model/keys.js';
import { applyMutation } from './apply-mutation.js';
import { applyTransaction } from './apply-transaction.js';
import type { EntryChange, Mutation, StoredEntry } from './apply-mutation.js';
import type { KVPair, ListResult, WatchEvent } from './datastore.js';
import { deepFreeze } from './deep-freeze.js';
import { SortedKeys } from './sorted-keys.js';
import type { WatchHub } from './watch-hub.js';

/**
 * Key and value deep-frozen: shared with every reader, and a caller that tries to mutate one gets
 * a TypeError.
 */
type Entry = StoredEntry<unknown>;

/** The memory store's entries at one global revision; every change is told to the hub. */
export interface MemoryEntries {
  /** The revision of the last change (0 before the first). */
  revision(): number;
  /** Applies one write with the shared CAS rules; throws, changing nothing, if they refuse it. */
  commit<K extends Kind>(mutation: Mutation<unknown>): KVPair<K> | undefined;
  /** Applies writes all or nothing: every precondition is checked before the first change. */
  commitAll(mutations: readonly Mutation<unknown>[]): (KVPair | undefined)[];
  /** The entry at `key`, if any. */
  get<K extends Kind>(key: DatastoreKey<K>): KVPair<K> | undefined;
  /** The entries matching `options`, in key order, at the current revision. */
  list<K extends Kind>(options: ListOptions<K>): ListResult<K>;
}

const toKv = <K extends Kind>(e: Entry): KVPair<K> => ({
  key: e.key as DatastoreKey<K>,
  value: e.value as KVPair<K>['value'],
  revision: String(e.modRevision),
  uid: e.uid,
});

/** Refuses a value no other store could hold (over Kubernetes' object size), before any change. */
const checkSize = (mutation: Mutation<unknown>): void => {
  if (mutation.op !== 'delete') assertEncodedSize(mutation.key, mutation.value as never);
};

/**
 * Creates empty {@link MemoryEntries} publishing to `hub`. Values are deep-frozen when stored and
 * shared with readers; a value over Kubernetes' object size is refused `InvalidArgument`.
 */
export function createMemoryEntries(hub: WatchHub): MemoryEntries {
  const entries = new Map<string, Entry>();
  const index = new SortedKeys();
  let revision = 0;

  /** Records a change the shared CAS rules computed, and tells the watchers. */
  const record = (change: EntryChange<unknown>): void => {
    revision = change.revision;
    if (change.type === 'deleted') {
      entries.delete(change.path);
      index.delete(change.path);
      const previous = toKv(change.entry);
      hub.publish({ type: 'deleted', key: change.entry.key, previous, revision: String(revision) });
      return;
    }
    deepFreeze(change.entry.key);
    deepFreeze(change.entry.value);
    if (!entries.has(change.path)) index.add(change.path);
    entries.set(change.path, change.entry);
    const event = { type: change.type, kv: toKv(change.entry), revision: String(revision) };
    hub.publish(event satisfies WatchEvent);
  };
  const kvOf = <K extends Kind>(change: EntryChange<unknown>): KVPair<K> | undefined =>
    change.type === 'deleted' ? undefined : toKv<K>(change.entry);

  return {
    revision: () => revision,
    commit<K extends Kind>(mutation: Mutation<unknown>): KVPair<K> | undefined {
      checkSize(mutation);
      const change = applyMutation({ entries, revision }, mutation, {
        newUid: `uid-${revision + 1}`,
      });
      record(change);
      return kvOf<K>(change);
    },
    commitAll(mutations) {
      mutations.forEach(checkSize);
      const changes = applyTransaction({ entries, revision }, mutations, (r) => `uid-${r}`);
      for (const change of changes) record(change);
      return changes.map((c) => kvOf(c));
    },
    get<K extends Kind>(key: DatastoreKey<K>): KVPair<K> | undefined {
      const current = entries.get(keyToPath(key));
      return current && toKv<K>(current);
    },
    list<K extends Kind>(options: ListOptions<K>): ListResult<K> {
      const items: KVPair<K>[] = [];
      // Prefixes are disjoint and listed in key order, so the result is in key order.
      for (const prefix of listPrefixes(options).sort()) {
        for (const p of index.withPrefix(prefix)) {
          const e = entries.get(p)!;
          if (matchesListOptions(e.key, options)) items.push(toKv(e));
        }
      }
      return { items, revision: String(revision) };
    },
  };
}
