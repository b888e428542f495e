import type { AllocationAttribute, AllocationBlock } from '../model/block.js';
import { blockGeometry } from './block-geometry.js';

/** Addresses held back at the start and end of every new block (Windows uses {3, 1}). */
export interface HostReservedAttr {
  readonly startOfBlock: number;
  readonly endOfBlock: number;
  readonly handle: string;
  readonly note: string;
}

/** Arguments of {@link newBlock}. */
export interface NewBlockArgs {
  readonly cidr: string;
  /** The initial block sequence number (Calico seeds it from Unix nanoseconds). */
  readonly sequenceNumber: bigint;
  readonly hostReserved?: HostReservedAttr;
  /** `host:<name>` or `virtual:<name>`. */
  readonly affinity?: string;
  /** RFC 3339 claim time. */
  readonly affinityClaimTime?: string;
}

/**
 * A fresh block: every ordinal free in ascending order, except the host-reserved ones, which
 * point at one attribute carrying the reservation's handle and note (and have no sequence number).
 */
export function newBlock(args: NewBlockArgs): AllocationBlock {
  const { size } = blockGeometry(args.cidr);
  const allocations: (number | null)[] = Array.from({ length: size }, () => null);
  const attributes: AllocationAttribute[] = [];
  let unallocated: number[] = Array.from({ length: size }, (_, i) => i);
  const rsvd = args.hostReserved;
  if (rsvd) {
    unallocated = unallocated.slice(
      rsvd.startOfBlock,
      Math.max(rsvd.startOfBlock, size - rsvd.endOfBlock),
    );
    for (let i = 0; i < size; i++) {
      if (i < rsvd.startOfBlock || i >= size - rsvd.endOfBlock) allocations[i] = 0;
    }
    attributes.push({ handleId: rsvd.handle, activeOwnerAttrs: { note: rsvd.note } });
  }
  return {
    cidr: args.cidr,
    ...(args.affinity !== undefined && { affinity: args.affinity }),
    ...(args.affinityClaimTime !== undefined && { affinityClaimTime: args.affinityClaimTime }),
    allocations,
    unallocated,
    attributes,
    sequenceNumber: args.sequenceNumber,
    sequenceNumberForAllocation: {},
    deleted: false,
    // Calico's newBlock leaves the attribute list nil until the first allocation, so a new block
    // is stored with `"attributes":null`; written the same way, it is byte for byte Calico's.
    ...(attributes.length === 0 && { storedJson: { emptyAs: { attributes: 'null' } } }),
  };
}
