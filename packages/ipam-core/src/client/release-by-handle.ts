import { sanitizeHandle } from '../block/block-attributes.js';
import { isBlockEmpty } from '../block/block-queries.js';
import { releaseByHandleFromBlock } from '../block/block-release.js';
import { withCasRetry } from '../cas-retry.js';
import { isIpamError } from '../errors.js';
import { deleteBlock, queryBlock, updateBlock } from './block-reader-writer.js';
import { ensureConsistentAffinity } from './ensure-consistent-affinity.js';
import { decrementHandle } from './handles.js';
import type { IpamContext } from './ipam-context.js';
import { loadConfig } from './ipam-reads.js';
import type { KeyedMutex } from './keyed-mutex.js';

/**
 * Releases every address of a handle, block by block (each one CAS write), then the handle.
 * `DoesNotExist` if the handle does not exist. A block that is gone means the handle over-counted.
 */
export async function releaseByHandle(
  ctx: IpamContext,
  handleId: string,
  blockLocks: KeyedMutex,
): Promise<void> {
  const id = sanitizeHandle(handleId);
  const handle = await ctx.ds.get({ kind: 'IPAMHandle', handleId: id });
  const config = await loadConfig(ctx);
  for (const cidr of Object.keys(handle.value.block)) {
    await blockLocks.run(cidr, async () => {
      const done = await withCasRetry(async () => {
        let loaded;
        try {
          loaded = await queryBlock(ctx, cidr, config.ipCooldownSeconds);
        } catch (e) {
          if (isIpamError(e, 'DoesNotExist')) return undefined;
          throw e;
        }
        const r = releaseByHandleFromBlock(
          loaded.block,
          { handleId: id },
          { nowMs: ctx.clock.now(), cooldownSeconds: config.ipCooldownSeconds },
        );
        if (r.count === 0) return undefined;
        if (isBlockEmpty(r.block) && r.block.affinity === undefined) {
          try {
            await deleteBlock(ctx, loaded.kv);
          } catch (e) {
            if (!isIpamError(e, 'DoesNotExist')) throw e;
          }
        } else {
          await updateBlock(ctx, loaded.kv, r.block);
        }
        return r;
      });
      // Every address of the handle in this block is released now, so whatever the handle counted
      // there beyond them was an over-count (a write whose outcome was unknown): drop it too.
      const count = Math.max(done?.count ?? 0, handle.value.block[cidr] ?? 0);
      await decrementHandle(ctx, { handleId: id, blockCidr: cidr, count }).catch(() => undefined);
      if (done)
        await ensureConsistentAffinity(ctx, done.block, config.ipCooldownSeconds).catch(
          () => undefined,
        );
    });
  }
}
