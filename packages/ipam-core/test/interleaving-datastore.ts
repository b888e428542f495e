import type { Datastore, KVPair } from '../src/datastore/datastore.js';
import type { DatastoreKey, Kind } from '../src/model/keys.js';

/** The Datastore operations a hook can be attached to. */
type DatastoreOperation = 'create' | 'update' | 'apply' | 'delete' | 'get' | 'list';

/** What a hook sees: the call it runs around, and the wrapped store to act on directly. */
interface HookCall {
  readonly op: DatastoreOperation;
  readonly kind: Kind;
  /** The key (absent for `list`). */
  readonly key?: DatastoreKey;
  /** The value being written (`create`, `update`, `apply`). */
  readonly value?: unknown;
  /** The revision a CAS write or delete is conditioned on. */
  readonly revision?: string;
  /** The store under the wrapper: what a hook does through it runs no hooks. */
  readonly inner: Datastore;
}

/** A hook: run `run` before or after the `times`-th-and-later matching calls (once by default). */
interface Hook {
  readonly when: 'before' | 'after';
  readonly op: DatastoreOperation;
  readonly kind: Kind;
  /** Further narrows the calls, e.g. by host or CIDR. */
  readonly match?: (call: HookCall) => boolean;
  /** How many matching calls it fires for (default 1); `Infinity` for every one. */
  readonly times?: number;
  /** Throwing from a `before` hook fails the call without reaching the store (an injected failure). */
  readonly run: (call: HookCall) => unknown;
}

/** A Datastore that runs test hooks around chosen operations, and counts them. */
export interface InterleavingDatastore extends Datastore {
  /** Adds a hook; returns a function that removes it. */
  hook(h: Hook): () => void;
  /** How many calls of `op` on `kind` went through the wrapper. */
  count(op: DatastoreOperation, kind: Kind): number;
  /** Every call through the wrapper, in order. */
  readonly log: { op: DatastoreOperation; kind: Kind; key?: DatastoreKey; revision?: string }[];
}

/**
 * Wraps a Datastore so a test can inject an interleaving at an exact point: run another client's
 * work (through `inner`, or through a client built on `inner`) right before or after a given
 * operation on a given kind, or make that operation fail. A hook is used up before it runs, so
 * work it does through the wrapper cannot re-trigger it.
 */
export function createInterleavingDatastore(inner: Datastore): InterleavingDatastore {
  const hooks: { hook: Hook; left: number }[] = [];
  const counts = new Map<string, number>();
  const log: InterleavingDatastore['log'] = [];

  async function around<T>(call: Omit<HookCall, 'inner'>, perform: () => Promise<T>): Promise<T> {
    const { op, kind, key, revision } = call;
    counts.set(`${op}:${kind}`, (counts.get(`${op}:${kind}`) ?? 0) + 1);
    log.push({ op, kind, ...(key && { key }), ...(revision !== undefined && { revision }) });
    const info: HookCall = { ...call, inner };
    const fire = async (when: Hook['when']): Promise<void> => {
      for (const entry of [...hooks]) {
        const h = entry.hook;
        if (entry.left <= 0 || h.when !== when || h.op !== op || h.kind !== kind) continue;
        if (h.match && !h.match(info)) continue;
        entry.left--;
        await h.run(info);
      }
    };
    await fire('before');
    const result = await perform();
    await fire('after');
    return result;
  }

  return {
    log,
    hook(h) {
      const entry = { hook: h, left: h.times ?? 1 };
      hooks.push(entry);
      return () => {
        const i = hooks.indexOf(entry);
        if (i >= 0) hooks.splice(i, 1);
      };
    },
    count: (op, kind) => counts.get(`${op}:${kind}`) ?? 0,
    create: (kv) =>
      around({ op: 'create', kind: kv.key.kind, key: kv.key, value: kv.value }, () =>
        inner.create(kv),
      ),
    update: (kv) =>
      around(
        { op: 'update', kind: kv.key.kind, key: kv.key, value: kv.value, revision: kv.revision },
        () => inner.update(kv),
      ),
    apply: (kv) =>
      around({ op: 'apply', kind: kv.key.kind, key: kv.key, value: kv.value }, () =>
        inner.apply(kv),
      ),
    delete: (key, options) =>
      around(
        {
          op: 'delete',
          kind: key.kind,
          key,
          ...(options?.revision !== undefined && { revision: options.revision }),
        },
        () => inner.delete(key, options),
      ),
    get: <K extends Kind>(key: DatastoreKey<K>): Promise<KVPair<K>> =>
      around({ op: 'get', kind: key.kind, key }, () => inner.get(key)),
    list: (options) => around({ op: 'list', kind: options.kind }, () => inner.list(options)),
    watch: (options, watchOptions) => inner.watch(options, watchOptions),
    ...(inner.upgradeAffinityLabels && {
      upgradeAffinityLabels: (host: string) => inner.upgradeAffinityLabels!(host),
    }),
    close: () => inner.close(),
  };
}
