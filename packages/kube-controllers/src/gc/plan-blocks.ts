import type { DatastoreKey } from '@netledger/ipam-core';
import type { GcState } from './gc-state.js';

/** A block becomes reclaimable from a node's floor in a full pool only this long after its claim. */
const MIN_RECLAIM_AGE_MS = 60_000;

/** Why an empty block's affinity is released. */
type EmptyBlockReason = 'empty-past-grace-period' | 'pool-full';

/** An empty block whose affinity is to be released. */
interface EmptyBlockRelease {
  readonly cidr: string;
  readonly node: string;
  readonly reason: EmptyBlockReason;
}

/** What {@link planEmptyBlockReleases} decided. */
export interface EmptyBlockPlan {
  readonly releases: readonly EmptyBlockRelease[];
  /** Blocks seen empty for the first time: the caller records `nowMs` for them. */
  readonly firstSeenEmpty: readonly string[];
}

/** Options of {@link planEmptyBlockReleases}. */
export interface PlanEmptyBlocksOptions {
  readonly nowMs: number;
  readonly leakGracePeriodMs: number | null;
  readonly isBackedOff?: (cidr: string) => boolean;
  /** Nodes being cleaned up whole this pass (their blocks go with them). */
  readonly releasingNodes?: ReadonlySet<string>;
}

/**
 * Whether every block of a pool has been carved out (no new block can be claimed in it). IPv6
 * pools practically never are; counts are bigints.
 */
function isPoolFull(state: GcState, poolName: string): boolean {
  const pool = state.pools.get(poolName);
  if (!pool) return false;
  const capacity = 1n << BigInt(Math.max(0, pool.blockSize - pool.cidr.prefix));
  return BigInt(state.blocksByPool.get(poolName)?.size ?? 0) >= capacity;
}

/**
 * Empty-block affinity release (Calico's `releaseUnusedBlocks`): a host-affine block must be seen
 * empty by two scans spanning the grace period (the first records when; any allocation in between
 * resets it), and a node keeps at least one affine block. The one exception (calico#11149): in a
 * pool with no block left to claim, an empty block claimed over a minute ago is reclaimed even
 * when it is its node's last, so nodes holding idle blocks cannot starve the others. A grace
 * period of 0 or unset disables this. Pure.
 */
export function planEmptyBlockReleases(
  state: GcState,
  options: PlanEmptyBlocksOptions,
): EmptyBlockPlan {
  const { nowMs, leakGracePeriodMs } = options;
  const releases: EmptyBlockRelease[] = [];
  const firstSeenEmpty: string[] = [];
  if (leakGracePeriodMs === null || leakGracePeriodMs <= 0) return { releases, firstSeenEmpty };
  const kept = new Map<string, number>();
  const remaining = (node: string): number =>
    kept.get(node) ?? state.blocksByNode.get(node)?.size ?? 0;
  const fullPools = new Map<string, boolean>();
  const entries = [...state.emptyBlocks].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [cidr, node] of entries) {
    if (options.releasingNodes?.has(node)) continue;
    const since = state.emptySince.get(cidr);
    if (since === undefined) {
      firstSeenEmpty.push(cidr);
      continue;
    }
    if (nowMs - since <= leakGracePeriodMs) continue;
    if (options.isBackedOff?.(cidr) === true) continue;
    let reason: EmptyBlockReason = 'empty-past-grace-period';
    if (remaining(node) <= 1) {
      const info = state.blocks.get(cidr);
      const pool = info?.pool ?? '';
      if (!fullPools.has(pool)) fullPools.set(pool, isPoolFull(state, pool));
      const claimedAgo =
        info?.affinityClaimTimeMs == null ? Infinity : nowMs - info.affinityClaimTimeMs;
      if (!fullPools.get(pool) || claimedAgo < MIN_RECLAIM_AGE_MS) continue;
      reason = 'pool-full';
    }
    kept.set(node, remaining(node) - 1);
    releases.push({ cidr, node, reason });
  }
  return { releases, firstSeenEmpty };
}

/**
 * Blocks whose cooled-down addresses are due (earliest `releasedAt` + cooldown has passed): only
 * those, never a walk of every block (Calico's `coldBlocks` backstop). Pure.
 */
export function planColdBlocks(
  state: GcState,
  options: { readonly nowMs: number; readonly isBackedOff?: (cidr: string) => boolean },
): string[] {
  const due: string[] = [];
  const cooldownMs = state.ipCooldownSeconds * 1000;
  for (const [cidr, earliest] of state.coldBlocks) {
    if (earliest + cooldownMs <= options.nowMs && options.isBackedOff?.(cidr) !== true)
      due.push(cidr);
  }
  return due;
}

/** An orphan handle to delete, at the revision it was observed at. */
export interface OrphanHandle {
  readonly key: DatastoreKey<'IPAMHandle'>;
  readonly handleId: string;
  readonly revision: string;
  readonly uid: string | undefined;
}

/** What {@link planOrphanHandles} decided. */
export interface OrphanHandlePlan {
  readonly deletions: readonly OrphanHandle[];
  /** Handles seen holding nothing for the first time (at their revision): record `nowMs`. */
  readonly firstSeenOrphan: readonly string[];
  /** Handles that hold an address again: clear their orphan time. */
  readonly inUse: readonly string[];
}

/**
 * Orphan handles (calico#8548): a handle object that no allocation carries, seen so for longer
 * than the grace period at an unchanged revision, is deleted at that revision (a CNI ADD in flight
 * bumps the revision, and the delete then fails). A grace period of 0 or unset disables it. Pure.
 */
export function planOrphanHandles(
  state: GcState,
  options: {
    readonly nowMs: number;
    readonly leakGracePeriodMs: number | null;
    readonly isBackedOff?: (key: string) => boolean;
  },
): OrphanHandlePlan {
  const deletions: OrphanHandle[] = [];
  const firstSeenOrphan: string[] = [];
  const inUse: string[] = [];
  const grace = options.leakGracePeriodMs;
  if (grace === null || grace <= 0) return { deletions, firstSeenOrphan, inUse };
  for (const [key, h] of state.handles) {
    if (state.allocationsByHandle.has(h.handleId)) {
      if (h.orphanSinceMs !== null) inUse.push(key);
      continue;
    }
    if (h.orphanSinceMs === null) firstSeenOrphan.push(key);
    else if (options.nowMs - h.orphanSinceMs > grace && options.isBackedOff?.(key) !== true) {
      deletions.push({ key: h.key, handleId: h.handleId, revision: h.revision, uid: h.uid });
    }
  }
  return { deletions, firstSeenOrphan, inUse };
}
