import { IpamError } from '../errors.js';
import type { AllocationBlock } from '../model/block.js';
import { findOrAddAttribute } from './block-attributes.js';
import { blockGeometry, ipToOrdinal } from './block-geometry.js';

/** Arguments of {@link assignInBlock}. */
export interface BlockAssignArgs {
  readonly ip: string;
  readonly handleId?: string;
  readonly attrs?: Readonly<Record<string, string>>;
  readonly affinity: string;
  readonly affinityCheck: boolean;
}

/**
 * Allocates one specific address. `AlreadyExists` ("Address already assigned in block") if it is
 * allocated or cooling down; under strict affinity, a block affine elsewhere is refused.
 */
export function assignInBlock(block: AllocationBlock, args: BlockAssignArgs): AllocationBlock {
  if (args.affinityCheck) {
    if (block.affinity === undefined) {
      throw new IpamError(
        'InvalidArgument',
        `Attempt to assign from block ${block.cidr} with no affinity`,
      );
    }
    if (block.affinity !== args.affinity)
      throw new IpamError('InvalidArgument', 'Block host affinity does not match');
  }
  const ordinal = ipToOrdinal(blockGeometry(block.cidr), args.ip);
  if (block.allocations[ordinal] !== null) {
    throw new IpamError('AlreadyExists', 'Address already assigned in block', {
      identifier: args.ip,
    });
  }
  const { attributes, index } = findOrAddAttribute(block.attributes, {
    ...(args.handleId !== undefined && { handleId: args.handleId }),
    ...(args.attrs !== undefined && { activeOwnerAttrs: args.attrs }),
  });
  const allocations = [...block.allocations];
  allocations[ordinal] = index;
  return {
    ...block,
    allocations,
    unallocated: block.unallocated.filter((o) => o !== ordinal),
    attributes,
    sequenceNumberForAllocation: {
      ...block.sequenceNumberForAllocation,
      [String(ordinal)]: block.sequenceNumber,
    },
  };
}
