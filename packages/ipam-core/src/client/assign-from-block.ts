import type { AddressFilter } from '@netledger/accounting';
import { autoAssignFromBlock } from '../block/block-auto-assign.js';
import type { LoadedBlock } from './block-reader-writer.js';
import { incrementHandle } from './handles.js';
import type { IpamContext } from './ipam-context.js';
import { writeCountedBlock } from './write-counted-block.js';

/** Arguments of {@link assignFromExistingBlock}. */
export interface AssignFromBlockArgs {
  readonly num: number;
  readonly handleId?: string;
  readonly attrs?: Readonly<Record<string, string>>;
  readonly affinity: string;
  readonly affinityCheck: boolean;
  readonly reservations: AddressFilter;
  readonly maxAllocPerVersion?: number;
}

/** Addresses taken (possibly none), or the handle's per-version cap was reached. */
export type AssignFromBlockResult =
  { readonly kind: 'assigned'; readonly ips: string[] } | { readonly kind: 'maxAllocReached' };

/**
 * Allocates up to `num` addresses from a loaded block in one CAS write. The handle is counted
 * first (by the number actually assigned, fixing Calico's over-count by the number requested),
 * then the block is written; if that write definitely failed the handle is decremented again (not
 * after `Unavailable`, whose write may have applied) and the error (`UpdateConflict` included, for
 * the caller's retry loop) propagates.
 */
export async function assignFromExistingBlock(
  ctx: IpamContext,
  loaded: LoadedBlock,
  args: AssignFromBlockArgs,
): Promise<AssignFromBlockResult> {
  const { block, ips } = autoAssignFromBlock(loaded.block, args);
  if (ips.length === 0) return { kind: 'assigned', ips };
  const blockCidr = loaded.block.cidr;
  if (args.handleId !== undefined) {
    const counted = await incrementHandle(ctx, {
      handleId: args.handleId,
      blockCidr,
      count: ips.length,
      ...(args.maxAllocPerVersion !== undefined && { maxAllocPerVersion: args.maxAllocPerVersion }),
    });
    if (!counted.ok) return { kind: 'maxAllocReached' };
  }
  await writeCountedBlock(ctx, {
    kv: loaded.kv,
    block,
    counted:
      args.handleId === undefined
        ? undefined
        : { handleId: args.handleId, blockCidr, count: ips.length },
  });
  return { kind: 'assigned', ips };
}
