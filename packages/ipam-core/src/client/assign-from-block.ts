import { autoAssignFromBlock } from '../block/block-auto-assign.js';
import type { BlockAutoAssignArgs } from '../block/block-auto-assign.js';
import type { LoadedBlock } from './block-reader-writer.js';
import type { IpamContext } from './ipam-context.js';
import { countAndWriteBlock } from './write-counted-block.js';

/** Arguments of {@link assignFromExistingBlock}. */
export interface AssignFromBlockArgs extends BlockAutoAssignArgs {
  readonly maxAllocPerVersion?: number;
}

/** Addresses taken (possibly none), or the handle's per-version cap was reached. */
export type AssignFromBlockResult =
  { readonly kind: 'assigned'; readonly ips: string[] } | { readonly kind: 'maxAllocReached' };

/**
 * Allocates up to `num` addresses from a loaded block in one CAS write, counted on the handle by
 * the number actually assigned (fixing Calico's over-count by the number requested):
 * `countAndWriteBlock`, in one transaction where the store has them. A block write that failed
 * (`UpdateConflict` included, for the caller's retry loop) propagates.
 */
export async function assignFromExistingBlock(
  ctx: IpamContext,
  loaded: LoadedBlock,
  args: AssignFromBlockArgs,
): Promise<AssignFromBlockResult> {
  const { block, ips } = autoAssignFromBlock(loaded.block, args);
  if (ips.length === 0) return { kind: 'assigned', ips };
  const blockCidr = loaded.block.cidr;
  const counted = await countAndWriteBlock(ctx, {
    kv: loaded.kv,
    block,
    counted:
      args.handleId === undefined
        ? undefined
        : { handleId: args.handleId, blockCidr, count: ips.length },
    ...(args.maxAllocPerVersion !== undefined && { maxAllocPerVersion: args.maxAllocPerVersion }),
  });
  if (!counted.ok) return { kind: 'maxAllocReached' };
  return { kind: 'assigned', ips };
}
