import { garbageCollectBlock } from '../block/garbage-collect.js';
import { updateBlock } from './block-reader-writer.js';
import type { IpamContext } from './ipam-context.js';
import { loadConfig } from './ipam-reads.js';
import type { KeyedMutex } from './keyed-mutex.js';

/**
 * The client's `garbageCollectColdIps`: under the block's lock, deallocates the block's addresses
 * whose cooldown (from the stored IPAM config) has elapsed, in one compare-and-swap. Returns
 * whether it changed the block; `DoesNotExist` when the block is gone, and nothing written then.
 */
export async function garbageCollectColdIps(
  ctx: IpamContext,
  blockCidr: string,
  blockLocks: KeyedMutex,
): Promise<boolean> {
  const config = await loadConfig(ctx);
  return blockLocks.run(blockCidr, async () => {
    const kv = await ctx.ds.get({ kind: 'IPAMBlock', cidr: blockCidr });
    const { block, changed } = garbageCollectBlock(kv.value, {
      nowMs: ctx.clock.now(),
      cooldownSeconds: config.ipCooldownSeconds,
    });
    if (changed) await updateBlock(ctx, kv, block);
    return changed;
  });
}
