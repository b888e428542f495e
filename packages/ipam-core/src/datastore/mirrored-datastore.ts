import { IpamError, isIpamError } from '../errors.js';
import type { DatastoreKey, Kind, ListOptions } from '../model/keys.js';
import { describeKey, matchesListOptions } from '../model/keys.js';
import type {
  Datastore,
  DeleteOptions,
  KVPair,
  ListResult,
  TransactionWrite,
  WatchEvent,
  WatchStream,
} from './datastore.js';
import { createMirrorState } from './mirror-state.js';
import { parseRevision } from './revision.js';

/** The kinds mirrored by default: read on every assignment, written rarely. */
export const DEFAULT_MIRRORED_KINDS: readonly Kind[] = [
  'IPPool',
  'IPReservation',
  'IPAMConfig',
  'Node',
  'BlockAffinity',
];

/** Timers the mirror's re-sync backoff runs on (injected in tests). */
export interface MirrorTimers {
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Options for {@link createMirroredDatastore}. */
export interface MirroredDatastoreOptions {
  /** Kinds served from memory (default {@link DEFAULT_MIRRORED_KINDS}); others pass through. */
  readonly kinds?: readonly Kind[];
  /**
   * Instead of `kinds`: what to mirror as lists, at most one per kind. A list with filters (a
   * `BlockAffinity` list naming a `host`) mirrors only what it matches: a node agent keeps its own
   * host's affinities, not the cluster's. Reads it covers are served from memory (a `get` of a key
   * it matches, a `list` whose filters include all of its); other reads pass through.
   */
  readonly lists?: readonly ListOptions[];
  /** Wait before the first re-sync after a failure, doubled per failure in a row (default 100 ms). */
  readonly retryDelayMs?: number;
  /** The longest wait between re-syncs (default 10,000 ms). */
  readonly maxRetryDelayMs?: number;
  /** Default: the global timers, unref'd so a pending re-sync does not keep a process alive. */
  readonly timers?: MirrorTimers;
  /** Told why the mirror fell back to the store (a failed sync, a broken watch). */
  readonly onFallback?: (error: unknown) => void;
}

/** A Datastore serving some kinds from a watch-fed memory mirror; see {@link createMirroredDatastore}. */
export interface MirroredDatastore extends Datastore {
  /** True while reads of mirrored kinds are served from memory. */
  isSynced(): boolean;
}

const systemTimers: MirrorTimers = {
  setTimeout: (run, ms) => {
    const t: unknown = setTimeout(run, ms);
    (t as { unref?: () => void }).unref?.(); // Node's timers have it; other runtimes' need not
    return t;
  },
  clearTimeout: (handle) => clearTimeout(handle as Parameters<typeof clearTimeout>[0]),
};

type Status = 'idle' | 'syncing' | 'synced' | 'waiting' | 'closed';

/** Whether every object a list with `options` returns is one `scope` mirrors. */
function covers(scope: ListOptions, options: ListOptions): boolean {
  if (scope.kind !== options.kind) return false;
  const s = scope as Readonly<Record<string, unknown>>;
  const o = options as Readonly<Record<string, unknown>>;
  return Object.keys(s).every((field) => s[field] === undefined || s[field] === o[field]);
}

/** The lists to mirror, one per kind. */
function mirroredLists(options: MirroredDatastoreOptions): ListOptions[] {
  if (options.lists && options.kinds)
    throw new IpamError('InvalidArgument', 'a mirror takes kinds or lists, not both');
  const lists =
    options.lists ??
    [...new Set(options.kinds ?? DEFAULT_MIRRORED_KINDS)].map((kind) => ({ kind }));
  const kinds = new Set(lists.map((l) => l.kind));
  if (kinds.size !== lists.length)
    throw new IpamError('InvalidArgument', 'a mirror takes at most one list per kind');
  return [...lists];
}

/** The watches of one sync; stopping closes them all. */
class Watches {
  stopped = false;
  private readonly streams = new Set<WatchStream>();
  add(stream: WatchStream): void {
    if (this.stopped) stream.close();
    else this.streams.add(stream);
  }
  stop(): void {
    this.stopped = true;
    for (const s of this.streams) s.close();
    this.streams.clear();
  }
}

/**
 * A read mirror in front of a store, like a Kubernetes informer cache, for low-churn kinds.
 *
 * The first read of a mirrored kind lists every mirrored kind (one `listMany` where the store
 * has it) and watches each from its list's revision; that read waits for this first sync. Once
 * synced, `get`, `list` and the mirrored lists of a `listMany` are answered from memory with the
 * store's items, key order, filtering and `DoesNotExist` errors (a `listMany` mixing kinds sends
 * the unmirrored ones to the store in one call). Values are frozen, as the memory store's are.
 *
 * Consistency: other clients' writes become visible once the watch delivers them (staleness
 * bounded by watch lag); this client's own writes are visible at once (read-your-writes), since
 * each successful write is applied to the mirror from its result, and a version or a delete only
 * replaces what the mirror knows of a key if its revision is higher. A delete at a revision
 * leaves a tombstone, so a late event cannot bring the key back; a delete without one only
 * covers the version the mirror knew, so a key created elsewhere that the mirror has not seen yet
 * may show again until the watch delivers the delete. Writes always go to the store, so every IPAM
 * write stays a compare-and-swap: a stale read can only make one fail `UpdateConflict`, and a
 * write failing `UpdateConflict`, `AlreadyExists` or `DoesNotExist` refreshes its key from the
 * store before the error is rethrown, so the caller's retry sees the store's state.
 *
 * A list's `revision` is the highest revision the mirror has from the store's own feed (the sync
 * list, then the watch) for that kind (the lowest of them across the mirrored kinds of a
 * `listMany`): this client's writes do not move it, so a watch from it never skips another
 * client's change the mirror has not seen yet, though it may repeat this client's writes.
 *
 * While not synced (the first sync failed, a watch failed or ended), reads go to the store and
 * the mirror re-syncs in the background with bounded backoff; it never answers from a state known
 * to be behind. For long-lived processes (node agents, controllers) only: a short-lived one (the
 * CNI plugin, the CLI) would pay a full list of every mirrored kind per run for nothing.
 *
 * `watch` and `upgradeAffinityLabels` pass through; `close()` stops the watches and timers and
 * closes the store. Requires decimal revisions that grow with each write (etcd, the memory and
 * file stores), one key written per revision.
 */
export function createMirroredDatastore(
  inner: Datastore,
  options: MirroredDatastoreOptions = {},
): MirroredDatastore {
  const lists = mirroredLists(options);
  const scopeOf = (kind: Kind): ListOptions | undefined => lists.find((l) => l.kind === kind);
  /** Whether the mirror holds `key`'s object (a key of a mirrored kind, within its list). */
  const holds = (key: DatastoreKey): boolean => {
    const scope = scopeOf(key.kind);
    return scope !== undefined && matchesListOptions(key, scope);
  };
  const covered = (o: ListOptions): boolean => {
    const scope = scopeOf(o.kind);
    return scope !== undefined && covers(scope, o);
  };
  const timers = options.timers ?? systemTimers;
  const firstDelay = options.retryDelayMs ?? 100;
  const maxDelay = options.maxRetryDelayMs ?? 10_000;
  const state = createMirrorState();
  let status: Status = 'idle';
  /** Bumped whenever the current sync and its watches are abandoned; late results are dropped. */
  let generation = 0;
  let initialSync: Promise<void> | undefined;
  let initialSyncDone = false;
  let watches: Watches | undefined;
  let timer: unknown;
  let delay = firstDelay;

  function fallBack(gen: number, error: unknown): void {
    if (gen !== generation || status === 'closed' || status === 'idle') return;
    generation++;
    watches?.stop();
    watches = undefined;
    status = 'waiting';
    try {
      options.onFallback?.(error);
    } catch {
      // A failing observer must not stop the re-sync.
    }
    timer = timers.setTimeout(() => {
      timer = undefined;
      void sync();
    }, delay);
    delay = Math.min(delay * 2, maxDelay);
  }

  /** Lists every mirrored kind, then watches each from its list; never rejects. */
  async function sync(): Promise<void> {
    const gen = ++generation;
    status = 'syncing';
    try {
      const results = inner.listMany
        ? await inner.listMany(lists)
        : await Promise.all(lists.map((o) => inner.list(o)));
      if (gen !== generation) return;
      for (const [i, o] of lists.entries())
        state.reconcile(o.kind, results[i]!.items, parseRevision(results[i]!.revision));
      const current = new Watches();
      watches = current;
      status = 'synced';
      for (const [i, o] of lists.entries())
        void follow({ gen, list: o, revision: results[i]!.revision, current });
    } catch (e) {
      fallBack(gen, e);
    }
  }

  /** Applies one kind's watch until it fails or ends; then falls back and re-syncs. Never rejects. */
  async function follow(args: {
    gen: number;
    list: ListOptions;
    revision: string;
    current: Watches;
  }): Promise<void> {
    const { gen, list, revision, current } = args;
    let error: unknown;
    try {
      const stream = inner.watch(list, { revision });
      current.add(stream);
      for await (const event of stream) {
        if (gen !== generation) return;
        apply(list, event);
        delay = firstDelay; // the watch works: the next failure starts the backoff afresh
      }
    } catch (e) {
      error = e;
    }
    if (!current.stopped)
      fallBack(gen, error ?? new IpamError('Unavailable', `watch of ${list.kind} ended`));
  }

  function apply(list: ListOptions, event: WatchEvent): void {
    const kind = list.kind;
    const key = event.type === 'deleted' ? event.key : event.kv.key;
    // A store whose watch range is wider than the list (the kind, the host).
    if (!matchesListOptions(key, list)) return;
    const revision = parseRevision(event.revision);
    if (event.type === 'deleted') state.observeGone(key, revision);
    else state.observePut(event.kv);
    // Nothing of this kind below this revision is still to come (more of it may be: a
    // transaction's other keys, which the mirror state takes at its watermark).
    state.advance(kind, revision);
  }

  /** True once reads can be served from memory; the first read waits for the first sync. */
  async function ready(): Promise<boolean> {
    if (status === 'idle') {
      initialSync = sync().finally(() => {
        initialSyncDone = true;
      });
    }
    if (initialSync && !initialSyncDone) await initialSync;
    return status === 'synced';
  }

  /** Updates the mirror from a write or refresh; a fact it cannot take breaks the mirror, not the write. */
  function learn(update: () => void): void {
    try {
      update();
    } catch (e) {
      if (status === 'synced') fallBack(generation, e);
    }
  }

  /** After a write conflicted on a mirrored key: read the key from the store so a retry sees it. */
  async function refresh(key: DatastoreKey): Promise<void> {
    const before = state.get(key);
    try {
      const kv = await inner.get(key);
      learn(() => state.observePut(kv));
    } catch (e) {
      if (isIpamError(e, 'DoesNotExist') && before)
        learn(() => state.observeGone(key, parseRevision(before.revision)));
      // Other errors: the key converges through the watch, or the next conflict refreshes it.
    }
  }

  async function write<T>(key: DatastoreKey, perform: () => Promise<T>): Promise<T> {
    try {
      return await perform();
    } catch (e) {
      if (holds(key) && isIpamError(e, 'UpdateConflict', 'AlreadyExists', 'DoesNotExist'))
        await refresh(key);
      throw e;
    }
  }

  async function writeThrough<K extends Kind>(
    key: DatastoreKey<K>,
    perform: () => Promise<KVPair<K>>,
  ): Promise<KVPair<K>> {
    const kv = await write(key, perform);
    if (holds(key)) learn(() => state.observePut(kv));
    return kv;
  }

  const missing = (key: DatastoreKey): IpamError =>
    new IpamError('DoesNotExist', `resource does not exist: ${describeKey(key)}`, {
      identifier: describeKey(key),
    });
  const revisionOf = (mirroredKinds: readonly Kind[]): string => {
    let min: bigint | undefined;
    for (const k of mirroredKinds) {
      const w = state.watermark(k)!;
      if (min === undefined || w < min) min = w;
    }
    return String(min);
  };

  /**
   * The version a delete surely removes: the one it names, else the one known now (a version the
   * watch brings in meanwhile may be a re-create after it, so it is not used).
   */
  const goneRevision = (key: DatastoreKey, o: DeleteOptions | undefined): string | undefined =>
    holds(key) ? (o?.revision ?? state.get(key)?.revision) : undefined;
  const learnGone = (key: DatastoreKey, gone: string | undefined): void => {
    if (gone !== undefined && holds(key)) learn(() => state.observeGone(key, parseRevision(gone)));
  };

  const listMany = inner.listMany?.bind(inner);
  const transact = inner.transact?.bind(inner);
  return {
    isSynced: () => status === 'synced',
    create: (kv) => writeThrough(kv.key, () => inner.create(kv)),
    update: (kv) => writeThrough(kv.key, () => inner.update(kv)),
    apply: (kv) => writeThrough(kv.key, () => inner.apply(kv)),
    async delete(key, deleteOptions) {
      const gone = goneRevision(key, deleteOptions);
      await write(key, () => inner.delete(key, deleteOptions));
      learnGone(key, gone);
    },
    ...(transact && {
      async transact(writes: readonly TransactionWrite[]): Promise<(KVPair | undefined)[]> {
        const keys = writes.map((w) => (w.op === 'delete' ? w.key : w.kv.key));
        const gone = writes.map((w) =>
          w.op === 'delete' ? goneRevision(w.key, w.options) : undefined,
        );
        let results;
        try {
          results = await transact(writes);
        } catch (e) {
          if (isIpamError(e, 'UpdateConflict', 'AlreadyExists', 'DoesNotExist'))
            await Promise.all(keys.filter(holds).map(refresh));
          throw e;
        }
        for (const [i, kv] of results.entries()) {
          if (kv) {
            if (holds(kv.key)) learn(() => state.observePut(kv));
          } else learnGone(keys[i]!, gone[i]);
        }
        return results;
      },
    }),
    async get<K extends Kind>(key: DatastoreKey<K>): Promise<KVPair<K>> {
      if (!holds(key) || !(await ready())) return inner.get(key);
      const kv = state.get(key);
      if (!kv) throw missing(key);
      return kv as KVPair<K>;
    },
    async list<K extends Kind>(listOptions: ListOptions<K>): Promise<ListResult<K>> {
      if (!covered(listOptions) || !(await ready())) return inner.list(listOptions);
      return {
        items: state.list(listOptions) as KVPair<K>[],
        revision: revisionOf([listOptions.kind]),
      };
    },
    ...(listMany && {
      async listMany(many: readonly ListOptions[]): Promise<ListResult[]> {
        const mine = many.filter(covered);
        if (mine.length === 0 || !(await ready())) return listMany(many);
        const rest = many.filter((o) => !covered(o));
        const fromInner = rest.length > 0 ? await listMany(rest) : [];
        // The watch may have failed while the store answered: then the store answers everything.
        if (status !== 'synced') return listMany(many);
        const revision = revisionOf(mine.map((o) => o.kind));
        let next = 0;
        return many.map((o) =>
          covered(o) ? { items: state.list(o), revision } : fromInner[next++]!,
        );
      },
    }),
    watch: (list, watchOptions) => inner.watch(list, watchOptions),
    ...(inner.upgradeAffinityLabels && {
      upgradeAffinityLabels: (host: string) => inner.upgradeAffinityLabels!(host),
    }),
    async close() {
      status = 'closed';
      generation++;
      watches?.stop();
      watches = undefined;
      if (timer !== undefined) timers.clearTimeout(timer);
      timer = undefined;
      await inner.close();
    },
  };
}
