import type { AllocationAttribute, AllocationBlock } from '../model/block.js';

/** Arguments of {@link garbageCollectBlock}. */
export interface GarbageCollectArgs {
  readonly nowMs: number;
  readonly cooldownSeconds: number;
}

/**
 * Frees ordinals whose cooldown has elapsed (the only place ordinals return to the free queue,
 * appended in ascending order) and drops attributes nothing points at, remapping indexes.
 *
 * An address released at `t` is free once `t + cooldown <= now`: with a cooldown of 0 it is free
 * on the next pass, as in Calico (release times are stored at one-second precision).
 */
export function garbageCollectBlock(
  block: AllocationBlock,
  args: GarbageCollectArgs,
): { block: AllocationBlock; changed: boolean } {
  const cutoff = args.nowMs - args.cooldownSeconds * 1000;
  const releasedMs = new Map<number, number>();
  block.attributes.forEach((a, i) => {
    if (a.releasedAt !== undefined) releasedMs.set(i, Date.parse(a.releasedAt));
  });
  // The common case on every block load: nothing is cooling down, so only pruning can apply.
  if (releasedMs.size === 0) {
    const pruned = pruneAttributes(block);
    return { block: pruned, changed: pruned !== block };
  }
  let allocations: (number | null)[] | undefined;
  let unallocated: number[] | undefined;
  let seqs: Record<string, bigint> | undefined;
  const used = new Set<number>();
  block.allocations.forEach((idx, ordinal) => {
    if (idx === null) return;
    const at = releasedMs.get(idx);
    if (at !== undefined && at <= cutoff) {
      allocations ??= [...block.allocations];
      unallocated ??= [...block.unallocated];
      seqs ??= { ...block.sequenceNumberForAllocation };
      allocations[ordinal] = null;
      unallocated.push(ordinal);
      delete seqs[String(ordinal)];
    } else {
      used.add(idx);
    }
  });
  if (!allocations && used.size === block.attributes.length) return { block, changed: false };
  const freed: AllocationBlock = allocations
    ? { ...block, allocations, unallocated: unallocated!, sequenceNumberForAllocation: seqs! }
    : block;
  return { block: pruneAttributes(freed), changed: true };
}

/** Drops attribute records no allocation points at, remapping the remaining indexes. */
export function pruneAttributes(block: AllocationBlock): AllocationBlock {
  const used = new Set<number>();
  const { allocations } = block;
  for (let i = 0; i < allocations.length; i++) {
    const idx = allocations[i];
    if (idx !== null && idx !== undefined) used.add(idx);
  }
  if (used.size === block.attributes.length) return block;
  const newIndex = new Map<number, number>();
  const kept: AllocationAttribute[] = [];
  block.attributes.forEach((a, i) => {
    if (used.has(i)) newIndex.set(i, kept.push(a) - 1);
  });
  return {
    ...block,
    attributes: kept,
    allocations: block.allocations.map((idx) => (idx === null ? null : newIndex.get(idx)!)),
  };
}
