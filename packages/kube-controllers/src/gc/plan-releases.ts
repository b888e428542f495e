import type { GcState } from './gc-state.js';
import type { TrackedAllocation } from './tracked-allocation.js';

/** The confirmed leaks of one block, released together by one `releaseIps` call. */
export interface BlockRelease {
  readonly blockCidr: string;
  readonly allocations: readonly TrackedAllocation[];
}

/** What {@link planReleases} decided. */
export interface ReleasePlan {
  readonly batches: readonly BlockRelease[];
  /** Confirmed leaks held back because another address of their handle is not a confirmed leak. */
  readonly heldByHandle: number;
  /** Confirmed leaks left for a later pass (the per-pass cap, or their block is backing off). */
  readonly deferred: number;
}

/** Options of {@link planReleases}. */
export interface PlanReleasesOptions {
  readonly maxReleases: number;
  /** Whether a block is waiting out a retry backoff. */
  readonly isBackedOff?: (blockCidr: string) => boolean;
}

/**
 * Chooses which confirmed leaks to release this pass, grouped per block. All or none per handle:
 * a handle is released only when every address it holds is a confirmed leak, and then all of them
 * (Calico's `handleTracker.isConfirmedLeak`), so a handle is never half released by choice. At
 * most `maxReleases` addresses (a first handle larger than that still goes whole); the rest roll
 * over. Addresses already released and not yet seen gone are never chosen again. Pure.
 */
export function planReleases(state: GcState, options: PlanReleasesOptions): ReleasePlan {
  const byBlock = new Map<string, TrackedAllocation[]>();
  const seenHandles = new Set<string>();
  let count = 0;
  let heldByHandle = 0;
  let deferred = 0;
  for (const t of state.confirmedLeaks.values()) {
    if (t.releaseRequested || seenHandles.has(t.handle)) continue;
    seenHandles.add(t.handle);
    const group = [...(state.allocationsByHandle.get(t.handle)?.values() ?? [t])];
    if (!group.every((a) => a.confirmedLeak)) {
      heldByHandle += group.filter((a) => a.confirmedLeak && !a.releaseRequested).length;
      continue;
    }
    const pending = group.filter((a) => !a.releaseRequested);
    if (
      pending.some((a) => options.isBackedOff?.(a.blockCidr) === true) ||
      (count > 0 && count + pending.length > options.maxReleases)
    ) {
      deferred += pending.length;
      continue;
    }
    count += pending.length;
    for (const a of pending) {
      const batch = byBlock.get(a.blockCidr);
      if (batch) batch.push(a);
      else byBlock.set(a.blockCidr, [a]);
    }
  }
  return {
    batches: [...byBlock].map(([blockCidr, allocations]) => ({ blockCidr, allocations })),
    heldByHandle,
    deferred,
  };
}
