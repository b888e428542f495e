import type { Kind, ListOptions } from '../model/keys.js';
import type { Datastore } from './datastore.js';
import { createMirrorReads } from './mirror-reads.js';
import { createMirrorScope } from './mirror-scope.js';
import { createMirrorState } from './mirror-state.js';
import type { MirrorTimers } from './mirror-sync.js';
import { MirrorSync } from './mirror-sync.js';
import { createMirrorWrites } from './mirror-writes.js';

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
  const scope = createMirrorScope(options);
  const state = createMirrorState();
  const sync = new MirrorSync({
    inner,
    lists: scope.lists,
    state,
    timers: options.timers ?? systemTimers,
    firstDelayMs: options.retryDelayMs ?? 100,
    maxDelayMs: options.maxRetryDelayMs ?? 10_000,
    onFallback: options.onFallback,
  });
  return {
    isSynced: () => sync.isSynced(),
    ...createMirrorWrites({ inner, state, scope, sync }),
    ...createMirrorReads({ inner, state, scope, sync }),
    watch: (list, watchOptions) => inner.watch(list, watchOptions),
    ...(inner.upgradeAffinityLabels && {
      upgradeAffinityLabels: (host: string) => inner.upgradeAffinityLabels!(host),
    }),
    async close() {
      sync.close();
      await inner.close();
    },
  };
}
