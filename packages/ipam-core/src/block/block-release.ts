import { IpamError } from '../errors.js';
import type { AllocationBlock } from '../model/block.js';
import { attributeOf, handleOf } from './block-attributes.js';
import { blockGeometry, ipToOrdinal } from './block-geometry.js';
import { sequenceNumberForOrdinal } from './block-queries.js';
import { garbageCollectBlock } from './garbage-collect.js';

/** One address to release, with optional ABA guards. */
export interface ReleaseOptions {
  readonly address: string;
  /** When set, must equal the allocation's (sanitized) handle. */
  readonly handle?: string;
  /** When set, must equal the block's sequence number recorded for the ordinal. */
  readonly sequenceNumber?: bigint;
}

/** Time and cooldown for the release and the garbage collection folded into it. */
export interface ReleaseClock {
  readonly nowMs: number;
  readonly cooldownSeconds: number;
}

/** RFC 3339 at one-second precision, as Kubernetes' metav1.Time marshals. */
export function toRfc3339Seconds(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/**
 * Puts `ordinals` into cooldown: they point at one fresh `releasedAt` attribute and record the
 * current block sequence number; then the block is garbage-collected (cooldown 0 frees them now).
 */
function coolDown(
  block: AllocationBlock,
  ordinals: readonly number[],
  clock: ReleaseClock,
): AllocationBlock {
  if (ordinals.length === 0) return garbageCollectBlock(block, clock).block;
  const idx = block.attributes.length;
  const allocations = [...block.allocations];
  const seqs = { ...block.sequenceNumberForAllocation };
  for (const o of ordinals) {
    allocations[o] = idx;
    seqs[String(o)] = block.sequenceNumber;
  }
  const cooled: AllocationBlock = {
    ...block,
    allocations,
    attributes: [...block.attributes, { releasedAt: toRfc3339Seconds(clock.nowMs) }],
    sequenceNumberForAllocation: seqs,
  };
  return garbageCollectBlock(cooled, clock).block;
}

/**
 * Releases addresses (de-duplicated, last option wins). An address already free or in cooldown
 * is reported in `unallocated`, not an error. A stale sequence number (`BadSequenceNumber`) or a
 * handle mismatch (`BadHandle`) rejects the whole call and changes nothing.
 */
export function releaseFromBlock(
  block: AllocationBlock,
  options: readonly ReleaseOptions[],
  clock: ReleaseClock,
): {
  block: AllocationBlock;
  unallocated: string[];
  countByHandle: Map<string, number>;
  released: number;
} {
  const g = blockGeometry(block.cidr);
  const byAddress = new Map<string, ReleaseOptions>();
  for (const o of options) byAddress.set(o.address, o);
  const unallocated: string[] = [];
  const countByHandle = new Map<string, number>();
  const ordinals: number[] = [];
  for (const opt of byAddress.values()) {
    const ordinal = ipToOrdinal(g, opt.address);
    if (opt.sequenceNumber !== undefined) {
      const expected = sequenceNumberForOrdinal(block, ordinal);
      if (opt.sequenceNumber !== expected) {
        throw new IpamError(
          'BadSequenceNumber',
          `cannot release ${opt.address}: sequence number ${opt.sequenceNumber} does not match ${expected}`,
          { identifier: opt.address },
        );
      }
    }
    const attr = attributeOf(block, ordinal);
    if (!attr || attr.releasedAt !== undefined) {
      unallocated.push(opt.address);
      continue;
    }
    const handle = handleOf(attr);
    if (opt.handle !== undefined && opt.handle !== '' && opt.handle !== handle) {
      throw new IpamError(
        'BadHandle',
        `cannot release ${opt.address}: handle ${opt.handle} does not match ${handle}`,
        {
          identifier: opt.address,
        },
      );
    }
    if (handle !== '') countByHandle.set(handle, (countByHandle.get(handle) ?? 0) + 1);
    ordinals.push(ordinal);
  }
  return {
    block: coolDown(block, ordinals, clock),
    unallocated,
    countByHandle,
    released: ordinals.length,
  };
}

/**
 * Releases every address of `handleId` in the block (optionally only those at `sequenceNumber`;
 * others are skipped silently, as in Calico). Unlike Calico it also records the release's sequence
 * number per ordinal, so a stale release aimed at a cooling address is refused like any other.
 */
export function releaseByHandleFromBlock(
  block: AllocationBlock,
  args: { handleId: string; sequenceNumber?: bigint },
  clock: ReleaseClock,
): { block: AllocationBlock; count: number } {
  const ordinals: number[] = [];
  block.allocations.forEach((idx, o) => {
    if (idx === null) return;
    const attr = block.attributes[idx];
    // An allocation without a handle belongs to no handle, not even the empty one (as in Calico).
    if (attr?.handleId === undefined || attr.releasedAt !== undefined) return;
    if (handleOf(attr) !== args.handleId) return;
    if (
      args.sequenceNumber !== undefined &&
      sequenceNumberForOrdinal(block, o) !== args.sequenceNumber
    )
      return;
    ordinals.push(o);
  });
  if (ordinals.length === 0) return { block, count: 0 };
  return { block: coolDown(block, ordinals, clock), count: ordinals.length };
}
