import type { DeviceDaemonDeps } from './device-daemon.js';
import { DeviceError } from './device-error.js';
import { samePool } from './diff-pools.js';
import type { LeaseBook } from './lease.js';
import { EMPTY_LEASE_BOOK, sameBook } from './lease.js';
import type { DaemonMetrics } from './metrics.js';
import { createDaemonMetrics } from './metrics.js';
import type { PoolRegistry } from './pool.js';
import type { AppliedRevision, RefusedRevision } from './refused-revision.js';
import { toPoolViews } from './views.js';

/**
 * What the daemon holds between operations, shared by the operations (one runs at a time): the
 * leases and pools as last persisted, the revision in force and a refused one, running containers.
 */
export interface DaemonState {
  readonly deps: DeviceDaemonDeps;
  readonly metrics: DaemonMetrics;
  book: LeaseBook;
  hostPools: PoolRegistry;
  current: AppliedRevision | undefined;
  /** The encoded text of the revision last saved: an unchanged one is not written again. */
  savedRevisionText: string | undefined;
  refused: RefusedRevision | undefined;
  readonly running: Set<string>;
}

/** The codes that refuse a revision as a whole. */
const REVISION_REFUSALS: ReadonlySet<string> = new Set([
  'InvalidDeviceJson',
  'InvalidPool',
  'UnsupportedPoolType',
  'PoolConflict',
  'RouteConflict',
  'DropsInUse',
]);

/** Whether `e` refuses a revision as a whole (rather than failing a host step). */
export function isRevisionRefusal(e: unknown): e is DeviceError {
  return e instanceof DeviceError && REVISION_REFUSALS.has(e.code);
}

/** An empty state (no leases, pools or revision) whose metrics read it at each scrape. */
export function createDaemonState(deps: DeviceDaemonDeps): DaemonState {
  const state: DaemonState = {
    deps,
    metrics: createDaemonMetrics(() => ({
      pools: toPoolViews(state.hostPools, state.book),
      leases: state.book.leases.size,
      rssBytes: deps.memory?.() ?? 0,
      refused: state.refused !== undefined,
    })),
    book: EMPTY_LEASE_BOOK,
    hostPools: new Map(),
    current: undefined,
    savedRevisionText: undefined,
    refused: undefined,
    running: new Set(),
  };
  return state;
}

/**
 * Saves a new book and pools before they take effect; an unchanged state is not written again
 * (flash wear). A failed save throws and leaves the state as it was.
 */
export async function persistState(
  state: DaemonState,
  next: { readonly book: LeaseBook; readonly pools: PoolRegistry },
): Promise<void> {
  if (next.book === state.book && next.pools === state.hostPools) return;
  const unchanged =
    sameBook(next.book, state.book) &&
    next.pools.size === state.hostPools.size &&
    [...next.pools].every(([name, p]) => {
      const before = state.hostPools.get(name);
      return before !== undefined && samePool(before, p);
    });
  if (!unchanged) await state.deps.store.save({ pools: next.pools, book: next.book });
  state.book = next.book;
  state.hostPools = next.pools;
}

/** Counts a failed apply by its code (a `DeviceError`) and rethrows `e`. */
export function countApplyFailure(state: DaemonState, e: unknown): never {
  if (e instanceof DeviceError) state.metrics.applyFailures.inc({ code: e.code });
  throw e;
}
