import type { DatastoreKey, Kind, ListOptions } from '../model/keys.js';
import { keyToPath, listPrefixes, matchesListOptions } from '../model/keys.js';
import type { KVPair } from './datastore.js';
import { deepFreeze } from './deep-freeze.js';
import { parseRevision } from './revision.js';
import { SortedKeys } from './sorted-keys.js';

/** What the mirror knows of one key: a live version, or that every version up to `revision` is gone. */
interface Known {
  readonly key: DatastoreKey;
  readonly revision: bigint;
  /** Absent for a tombstone. */
  readonly kv?: KVPair;
}

/**
 * The in-memory half of a read mirror: pure, synchronous, no I/O. It merges what it learns of
 * the store from any source (a list, a watch event, the result of a write, a refresh read) by
 * revision, so the order in which those arrive does not matter:
 *
 * - A version replaces what is known of its key only if its revision is higher.
 * - "Gone up to T" (a delete event, a delete at a revision, a list that lacks the key) leaves a
 *   tombstone at T, which refuses every version at or below T; a later re-create passes it.
 * - Per kind, a watermark W says the mirror has every change up to W (the last full list, moved
 *   on by the watch). A key it knows nothing about has no live version below W, so a late version
 *   below W of an unknown key is refused too; that is what lets tombstones at or below W be
 *   dropped. A version at W itself is taken: a transaction writes several keys at one revision,
 *   and the watch moves W on with the first of them.
 */
export interface MirrorState {
  /** Learns a version of a key; returns whether it was applied (newer than what was known). */
  observePut(kv: KVPair): boolean;
  /** Learns that every version of `key` up to `revision` is gone; returns whether it changed anything. */
  observeGone(key: DatastoreKey, revision: bigint): boolean;
  /** Replaces what is known of a kind by a full list read at `revision` (newer knowledge is kept). */
  reconcile(kind: Kind, items: readonly KVPair[], revision: bigint): void;
  /** Records that a kind's watch delivered everything up to `revision`, and drops tombstones it covers. */
  advance(kind: Kind, revision: bigint): void;
  /** The live version of a key. */
  get(key: DatastoreKey): KVPair | undefined;
  /** The revision of what is known of a key (a version or a tombstone). */
  knownRevision(key: DatastoreKey): bigint | undefined;
  /** Live versions matching `options`, in key-path order (the memory store's and etcd's). */
  list(options: ListOptions): KVPair[];
  /** The kind's watermark (undefined before its first full list). */
  watermark(kind: Kind): bigint | undefined;
  /** How many tombstones are kept (for tests and metrics). */
  tombstoneCount(): number;
}

/**
 * What is known by key path, with the live paths in key order and the tombstones' paths beside:
 * `set` and `forget` keep the three in step.
 */
function createKnowledge() {
  const known = new Map<string, Known>();
  const live = new SortedKeys();
  const tombstones = new Set<string>();
  const set = (path: string, k: Known): void => {
    // Shared with every reader: frozen, as the memory store's values are.
    if (k.kv) deepFreeze(k.kv);
    known.set(path, k);
    if (k.kv) {
      live.add(path);
      tombstones.delete(path);
    } else {
      live.delete(path);
      tombstones.add(path);
    }
  };
  const forget = (path: string): void => {
    known.delete(path);
    live.delete(path);
    tombstones.delete(path);
  };
  return { known, live, tombstones, set, forget };
}

/** Creates an empty {@link MirrorState}. */
export function createMirrorState(): MirrorState {
  const { known, live, tombstones, set, forget } = createKnowledge();
  const watermarks = new Map<Kind, bigint>();
  return {
    observePut(kv) {
      const path = keyToPath(kv.key);
      const revision = parseRevision(kv.revision);
      const current = known.get(path);
      if (current ? revision <= current.revision : revision < (watermarks.get(kv.key.kind) ?? 0n))
        return false;
      set(path, { key: kv.key, revision, kv });
      return true;
    },
    observeGone(key, revision) {
      const path = keyToPath(key);
      const current = known.get(path);
      if (current) {
        // At an equal revision the tombstone wins: the version at that revision is the one gone.
        if (revision < current.revision || (revision === current.revision && !current.kv))
          return false;
      } else {
        const w = watermarks.get(key.kind);
        if (w !== undefined && revision <= w) return false;
      }
      set(path, { key, revision });
      return true;
    },
    reconcile(kind, items, revision) {
      const listed = new Set<string>();
      for (const kv of items) {
        const path = keyToPath(kv.key);
        listed.add(path);
        const r = parseRevision(kv.revision);
        const current = known.get(path);
        if (!current || r > current.revision) set(path, { key: kv.key, revision: r, kv });
      }
      for (const [path, k] of [...known]) {
        // Knowledge newer than the list (a write that landed after it) stays.
        if (k.key.kind === kind && !listed.has(path) && k.revision <= revision) forget(path);
      }
      watermarks.set(kind, revision);
    },
    advance(kind, revision) {
      const w = watermarks.get(kind);
      if (w !== undefined && revision <= w) return;
      watermarks.set(kind, revision);
      for (const path of [...tombstones]) {
        const k = known.get(path)!;
        if (k.key.kind === kind && k.revision <= revision) forget(path);
      }
    },
    get(key) {
      return known.get(keyToPath(key))?.kv;
    },
    knownRevision(key) {
      return known.get(keyToPath(key))?.revision;
    },
    list(options) {
      const items: KVPair[] = [];
      // Prefixes are disjoint and listed in key order, so the result is in key order.
      for (const prefix of listPrefixes(options).sort()) {
        for (const path of live.withPrefix(prefix)) {
          const kv = known.get(path)!.kv!;
          if (matchesListOptions(kv.key, options)) items.push(kv);
        }
      }
      return items;
    },
    watermark: (kind) => watermarks.get(kind),
    tombstoneCount: () => tombstones.size,
  };
}
