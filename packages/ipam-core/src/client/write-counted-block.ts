import { DATASTORE_RETRIES } from '../cas-retry.js';
import type { Datastore, KVPair } from '../datastore/datastore.js';
import { isIpamError } from '../errors.js';
import type { AllocationBlock } from '../model/block.js';
import { refusesKey } from '../datastore/store-errors.js';
import { blockRewrite, updateBlock } from './block-reader-writer.js';
import { addToHandle, decrementHandle, handleKey, incrementHandle } from './handles.js';
import type { HandleCount, IncrementResult } from './handles.js';
import type { IpamContext } from './ipam-context.js';

/** The handle count taken ahead of a block write: who, where, how many. */
interface CountedAhead {
  readonly handleId: string;
  readonly blockCidr: string;
  readonly count: number;
}

/** A block write whose new allocations are counted on a handle. */
export interface CountedBlockWrite {
  /** The block as read. */
  readonly kv: KVPair<'IPAMBlock'>;
  /** Its new value. */
  readonly block: AllocationBlock;
  /** The handle count to take with it, if any. */
  readonly counted: CountedAhead | undefined;
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
  write: CountedBlockWrite,
): Promise<KVPair<'IPAMBlock'>> {
  const { kv, block, counted } = write;
  try {
    return await updateBlock(ctx, kv, block);
  } catch (e) {
    if (counted && !isIpamError(e, 'Unavailable')) await decrementHandle(ctx, counted);
    throw e;
  }
}

/**
 * Counts a block's new allocations on their handle and writes the block: in one transaction where
 * the store has them (one durable write: both apply or neither, so an unknown outcome leaves
 * nothing to repair), else the handle first and then the block ({@link writeCountedBlock}).
 * Refuses, writing nothing, when the handle's per-version cap would be passed. A conflict on the
 * block propagates for the caller's retry; one on the handle is retried here.
 */
export async function countAndWriteBlock(
  ctx: IpamContext,
  write: CountedBlockWrite & { readonly maxAllocPerVersion?: number },
): Promise<IncrementResult> {
  const { counted } = write;
  if (!counted) {
    await updateBlock(ctx, write.kv, write.block);
    return { ok: true };
  }
  const count: HandleCount = {
    ...counted,
    ...(write.maxAllocPerVersion !== undefined && {
      maxAllocPerVersion: write.maxAllocPerVersion,
    }),
  };
  const transact = ctx.ds.transact?.bind(ctx.ds);
  if (transact) return countInTransaction(ctx, { transact, write, count });
  const done = await incrementHandle(ctx, count);
  if (done.ok) await writeCountedBlock(ctx, write);
  return done;
}

async function countInTransaction(
  ctx: IpamContext,
  args: {
    transact: NonNullable<Datastore['transact']>;
    write: CountedBlockWrite;
    count: HandleCount;
  },
): Promise<IncrementResult> {
  const { transact, write, count } = args;
  const key = handleKey(count.handleId);
  // Most handles are new (one per container): the first attempt creates it.
  let current: KVPair<'IPAMHandle'> | undefined;
  for (let attempt = 1; ; attempt++) {
    const next = addToHandle(current?.value, count);
    if ('over' in next) return { ok: false, currentCount: next.over };
    try {
      await transact([
        current
          ? { op: 'update', kv: { ...current, value: next.value } }
          : { op: 'create', kv: { key, value: next.value } },
        { op: 'update', kv: blockRewrite(write.kv, write.block) },
      ]);
      return { ok: true };
    } catch (e) {
      if (!refusesKey(e, key) || attempt >= DATASTORE_RETRIES) throw e;
    }
    // The handle exists, changed or went away since: count on what it holds now.
    current = await ctx.ds.get(key).catch((e: unknown) => {
      if (isIpamError(e, 'DoesNotExist')) return undefined;
      throw e;
    });
  }
}
