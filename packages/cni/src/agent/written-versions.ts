// How the agent serves a DEL without reading the store in steady state: a DEL reads the handle,
// then its block, then the handle again (to decrement it), each of which this agent almost always
// wrote last itself (its ADD created the handle and wrote the block). It keeps those versions, and
// a DEL's reads of them are answered from memory; every write built on them is a compare-and-swap
// at that version, so a version another writer replaced fails the write, which drops it, and the
// client's retry reads the store. A DEL during which such a write failed, or that failed after a
// read from memory, is redone reading the store (a DEL is idempotent), so a version another
// process replaced (a plugin that ran in-process meanwhile) can never make it miss an address.
import { AsyncLocalStorage } from 'node:async_hooks';
import { forwardingDatastore, keyToPath } from '@netledger/ipam-core/adapter';
import type { Datastore, DatastoreKey, KVPair, Kind, TransactionWrite } from '@netledger/ipam-core';

/** How many objects the agent remembers (the oldest are forgotten first). */
const DEFAULT_LIMIT = 4096;

/** The kinds remembered: what a DEL reads and the agent itself writes. */
const KINDS: ReadonlySet<Kind> = new Set<Kind>(['IPAMBlock', 'IPAMHandle']);

/** What became of the reads answered from memory during {@link WrittenVersions.trusting}. */
interface TrustOutcome {
  /** At least one read was answered from memory. */
  answered: boolean;
  /** A write of a key whose read was answered from memory failed: that version was stale. */
  stale: boolean;
}

/** A datastore that remembers the versions it wrote or read, and answers reads from them when told. */
export interface WrittenVersions {
  readonly datastore: Datastore;
  /**
   * Runs `work` (and everything it starts) with reads of remembered blocks and handles answered
   * from memory, and says whether any was, and whether one of them proved stale. Outside it every
   * read goes to the store (and what it returns is remembered).
   */
  trusting<T>(work: () => Promise<T>): Promise<{ value: T; outcome: TrustOutcome }>;
  /** How many objects are remembered. */
  size(): number;
}

/**
 * Wraps `inner` with {@link WrittenVersions}: blocks and handles returned by its `get`, `create`,
 * `update`, `apply` and `transact` are remembered (at most `limit`, oldest forgotten first); a
 * `delete`, or any failed write of a key (a conflict: another writer changed it; or an unknown
 * outcome; for a transaction, every key in it), forgets it.
 * Lists and watches are not affected.
 */
export function createWrittenVersions(inner: Datastore, limit = DEFAULT_LIMIT): WrittenVersions {
  const known = new Map<string, KVPair>();
  const trusted = new AsyncLocalStorage<{ outcome: TrustOutcome; served: Set<string> }>();
  const remember = <K extends Kind>(kv: KVPair<K>): KVPair<K> => {
    if (!KINDS.has(kv.key.kind)) return kv;
    const path = keyToPath(kv.key);
    known.delete(path); // re-inserted last: Map order is the eviction order
    known.set(path, kv);
    if (known.size > limit) known.delete(known.keys().next().value!);
    return kv;
  };
  const forget = (key: DatastoreKey): void => {
    if (!KINDS.has(key.kind)) return;
    const path = keyToPath(key);
    known.delete(path);
    const trust = trusted.getStore();
    if (trust?.served.has(path)) trust.outcome.stale = true;
  };
  /** A write of `key`: what it returns is remembered; a failure forgets the key. */
  const write = async <T>(key: DatastoreKey, work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (e) {
      forget(key);
      throw e;
    }
  };
  const transact = inner.transact?.bind(inner);
  const datastore: Datastore = {
    ...forwardingDatastore(inner),
    async get<K extends Kind>(key: DatastoreKey<K>): Promise<KVPair<K>> {
      const trust = trusted.getStore();
      if (trust && KINDS.has(key.kind)) {
        const path = keyToPath(key);
        const kv = known.get(path);
        if (kv) {
          trust.served.add(path);
          trust.outcome.answered = true;
          return kv as KVPair<K>;
        }
      }
      try {
        return remember(await inner.get(key));
      } catch (e) {
        forget(key);
        throw e;
      }
    },
    create: (kv) => write(kv.key, async () => remember(await inner.create(kv))),
    update: (kv) => write(kv.key, async () => remember(await inner.update(kv))),
    apply: (kv) => write(kv.key, async () => remember(await inner.apply(kv))),
    delete: (key, options) =>
      write(key, async () => {
        await inner.delete(key, options);
        if (KINDS.has(key.kind)) known.delete(keyToPath(key));
      }),
    ...(transact && {
      async transact(writes: readonly TransactionWrite[]) {
        const keys = writes.map((w) => (w.op === 'delete' ? w.key : w.kv.key));
        let results;
        try {
          results = await transact(writes);
        } catch (e) {
          keys.forEach(forget);
          throw e;
        }
        results.forEach((kv, i) => {
          if (kv) remember(kv);
          else if (KINDS.has(keys[i]!.kind)) known.delete(keyToPath(keys[i]!));
        });
        return results;
      },
    }),
  };
  return {
    datastore,
    async trusting(work) {
      const outcome: TrustOutcome = { answered: false, stale: false };
      const value = await trusted.run({ outcome, served: new Set() }, work);
      return { value, outcome };
    },
    size: () => known.size,
  };
}
