import type { AddressFilter } from '@netledger/accounting';
import { IpamError } from '../errors.js';
import type { AllocationBlock } from '../model/block.js';
import { findOrAddAttribute } from './block-attributes.js';
import { blockGeometry, ordinalToAddress, ordinalToIp } from './block-geometry.js';

/** Arguments of {@link autoAssignFromBlock}. */
export interface BlockAutoAssignArgs {
  readonly num: number;
  readonly handleId?: string;
  readonly attrs?: Readonly<Record<string, string>>;
  /** The requester's `type:host`. */
  readonly affinity: string;
  /** Refuse a block that is not affine to the requester (strict affinity). */
  readonly affinityCheck: boolean;
  readonly reservations: AddressFilter;
}

/**
 * Takes up to `num` free ordinals from the head of the FIFO queue, skipping reserved addresses
 * (which keep their place in the queue). All new allocations share one attribute record.
 * Returns the new block and the addresses with the block's mask (`10.0.0.2/26`); fewer than
 * `num`, possibly none, is not an error.
 */
export function autoAssignFromBlock(
  block: AllocationBlock,
  args: BlockAutoAssignArgs,
): { block: AllocationBlock; ips: string[] } {
  if (args.affinityCheck) {
    if (block.affinity === undefined) {
      throw new IpamError(
        'InvalidArgument',
        `Attempt to assign from block ${block.cidr} with no affinity`,
      );
    }
    if (block.affinity !== args.affinity) {
      throw new IpamError(
        'InvalidArgument',
        `Block affinity (${block.affinity}) does not match provided (${args.affinity})`,
      );
    }
  }
  const g = blockGeometry(block.cidr);
  const checkReserved = args.reservations.matchesSome(g.cidr);
  let taken: number[];
  let kept: number[];
  if (!checkReserved) {
    // No reservation touches the block: take straight from the head of the queue.
    taken = block.unallocated.slice(0, args.num);
    kept = block.unallocated.slice(args.num);
  } else {
    taken = [];
    kept = [];
    for (const ordinal of block.unallocated) {
      if (taken.length >= args.num || args.reservations.matchesIp(ordinalToAddress(g, ordinal))) {
        kept.push(ordinal);
      } else {
        taken.push(ordinal);
      }
    }
  }
  if (taken.length === 0) return { block, ips: [] };
  const { attributes, index } = findOrAddAttribute(block.attributes, {
    ...(args.handleId !== undefined && { handleId: args.handleId }),
    ...(args.attrs !== undefined && { activeOwnerAttrs: args.attrs }),
  });
  const allocations = [...block.allocations];
  const seqs = { ...block.sequenceNumberForAllocation };
  for (const o of taken) {
    allocations[o] = index;
    seqs[String(o)] = block.sequenceNumber;
  }
  return {
    block: {
      ...block,
      allocations,
      unallocated: kept,
      attributes,
      sequenceNumberForAllocation: seqs,
    },
    ips: taken.map((o) => `${ordinalToIp(g, o)}/${g.prefix}`),
  };
}
