import type { KVPair } from '../datastore/datastore.js';
import { isIpamError } from '../errors.js';
import type { AllocationBlock } from '../model/block.js';
import { updateBlock } from './block-reader-writer.js';
import { decrementHandle } from './handles.js';
import type { IpamContext } from './ipam-context.js';

/** The handle count taken ahead of a block write: who, where, how many. */
export interface CountedAhead {
  readonly handleId: string;
  readonly blockCidr: string;
  readonly count: number;
}

/**
 * CAS-writes a block whose new allocations were already counted on a handle (handle first, so a
 * crash can only over-count). If the write surely did not apply, the count is taken back and the
 * error rethrown for the caller's retry. If its outcome is unknown (`Unavailable`: the store may
 * have applied it), the count stays: an over-counting handle is cleaned up by `releaseByHandle`,
 * whereas an address its handle does not count would leak.
 */
export async function writeCountedBlock(
  ctx: IpamContext,
  write: {
    /** The block as read. */
    readonly kv: KVPair<'IPAMBlock'>;
    /** Its new value. */
    readonly block: AllocationBlock;
    /** The handle count taken ahead, if any. */
    readonly counted: CountedAhead | undefined;
  },
): Promise<KVPair<'IPAMBlock'>> {
  const { kv, block, counted } = write;
  try {
    return await updateBlock(ctx, kv, block);
  } catch (e) {
    if (counted && !isIpamError(e, 'Unavailable')) await decrementHandle(ctx, counted);
    throw e;
  }
}
