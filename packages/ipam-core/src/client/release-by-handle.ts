import { sanitizeHandle } from '../block/block-attributes.js';
import { isBlockEmpty } from '../block/block-queries.js';
import { releaseByHandleFromBlock } from '../block/block-release.js';
import { withCasRetry } from '../cas-retry.js';
import type { Datastore, KVPair, TransactionWrite } from '../datastore/datastore.js';
import { refusesKey, updateConflictError } from '../datastore/store-errors.js';
import { isIpamError } from '../errors.js';
import type { AllocationBlock } from '../model/block.js';
import type { LoadedBlock } from './block-reader-writer.js';
import { blockRewrite, deleteBlock, queryBlock, updateBlock } from './block-reader-writer.js';
import { affinityNotEnsured, ensureConsistentAffinity } from './ensure-consistent-affinity.js';
import { decrementHandle, handleKey, handleNotDecremented } from './handles.js';
import type { IpamContext } from './ipam-context.js';
import { reportFailure } from './ipam-report.js';
import { loadConfig } from './ipam-reads.js';
import type { KeyedMutex } from './keyed-mutex.js';

/** One block's release: the block as released, and whether the handle was updated with it. */
interface BlockReleased {
  readonly block: AllocationBlock;
  readonly count: number;
  readonly handleUpdated: boolean;
}

/**
 * Releases every address of a handle, block by block (each one CAS write), then the handle.
 * Where the store has transactions, each block's write also takes the block off the handle (and
 * the last one deletes it), in one durable write. `DoesNotExist` if the handle does not exist. A
 * block that is gone means the handle over-counted.
 */
export async function releaseByHandle(
  ctx: IpamContext,
  handleId: string,
  blockLocks: KeyedMutex,
): Promise<void> {
  const id = sanitizeHandle(handleId);
  const first = await ctx.ds.get(handleKey(id));
  const config = await loadConfig(ctx);
  const transact = ctx.ds.transact?.bind(ctx.ds);
  /** The handle as last read or written here; undefined once it is gone. */
  let handle: KVPair<'IPAMHandle'> | undefined = first;
  for (const cidr of Object.keys(first.value.block)) {
    await blockLocks.run(cidr, async () => {
      const done = await withCasRetry(async (): Promise<BlockReleased | undefined> => {
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
        const drop = isBlockEmpty(r.block) && r.block.affinity === undefined;
        if (transact && handle) {
          const out = await releaseInTransaction(ctx, { transact, loaded, ...r, drop, handle });
          handle = out.handle;
          if (!out.written) throw updateConflictError(handleKey(id));
          return { ...r, handleUpdated: true };
        }
        if (drop) {
          try {
            await deleteBlock(ctx, loaded.kv);
          } catch (e) {
            if (!isIpamError(e, 'DoesNotExist')) throw e;
          }
        } else {
          await updateBlock(ctx, loaded.kv, r.block);
        }
        return { ...r, handleUpdated: false };
      });
      // Every address of the handle in this block is released now, so whatever the handle counted
      // there beyond them was an over-count (a write whose outcome was unknown): drop it too.
      // The block is released: what follows is best effort, reported but never failing the call.
      if (!done?.handleUpdated) {
        const count = Math.max(done?.count ?? 0, first.value.block[cidr] ?? 0);
        await decrementHandle(ctx, { handleId: id, blockCidr: cidr, count }).catch(
          (cause: unknown) => reportFailure(ctx, handleNotDecremented({ handle: id, cidr, cause })),
        );
      }
      if (done) {
        await ensureConsistentAffinity(ctx, done.block, config.ipCooldownSeconds).catch(
          (cause: unknown) => reportFailure(ctx, affinityNotEnsured({ cidr, cause })),
        );
      }
    });
  }
}

const preconditionsOf = <K extends 'IPAMBlock' | 'IPAMHandle'>(kv: KVPair<K>) => ({
  revision: kv.revision,
  ...(kv.uid !== undefined && { uid: kv.uid }),
});

/**
 * Writes a block's release and takes the block off the handle, deleting the handle when it counts
 * nothing else, in one transaction. `written`: whether it applied; `handle`: the handle as written
 * (undefined once deleted), or, when the handle changed or went away meanwhile, as read again for
 * the retry. A refusal of the block write propagates, for the caller's retry.
 */
async function releaseInTransaction(
  ctx: IpamContext,
  args: {
    transact: NonNullable<Datastore['transact']>;
    loaded: LoadedBlock;
    block: AllocationBlock;
    /** Delete the block (empty and unaffine) instead of updating it. */
    drop: boolean;
    handle: KVPair<'IPAMHandle'>;
  },
): Promise<{ written: boolean; handle: KVPair<'IPAMHandle'> | undefined }> {
  const { loaded, handle } = args;
  const cidr = loaded.kv.key.cidr;
  const rest = Object.fromEntries(Object.entries(handle.value.block).filter(([c]) => c !== cidr));
  const writes: TransactionWrite[] = [
    args.drop
      ? { op: 'delete', key: loaded.kv.key, options: preconditionsOf(loaded.kv) }
      : { op: 'update', kv: blockRewrite(loaded.kv, args.block) },
    Object.keys(rest).length > 0
      ? { op: 'update', kv: { ...handle, value: { ...handle.value, block: rest } } }
      : { op: 'delete', key: handle.key, options: preconditionsOf(handle) },
  ];
  try {
    const [, written] = await args.transact(writes);
    return { written: true, handle: written as KVPair<'IPAMHandle'> | undefined };
  } catch (e) {
    if (!refusesKey(e, handle.key)) {
      // A block deleted since it was read: the retry finds it gone, as a single write would.
      if (refusesKey(e, loaded.kv.key)) throw updateConflictError(loaded.kv.key);
      throw e;
    }
  }
  const now = await ctx.ds.get(handle.key).catch((e: unknown) => {
    if (isIpamError(e, 'DoesNotExist')) return undefined;
    throw e;
  });
  return { written: false, handle: now };
}
