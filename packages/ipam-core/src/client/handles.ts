import { withCasRetry } from '../cas-retry.js';
import { IpamError, isIpamError } from '../errors.js';
import { ipVersionOf } from '../model/keys.js';
import type { DatastoreKey } from '../model/keys.js';
import type { IpamHandle } from '../model/ipam-handle.js';
import type { IpamContext } from './ipam-context.js';
import type { IpamReport } from './ipam-report.js';

/** The key of a handle. */
export const handleKey = (handleId: string): DatastoreKey<'IPAMHandle'> => ({
  kind: 'IPAMHandle',
  handleId,
});

/** What {@link incrementHandle} found: done, or the per-version cap already reached. */
export type IncrementResult =
  { readonly ok: true } | { readonly ok: false; readonly currentCount: number };

/** How many addresses of one block to count on a handle, and the cap per IP version (0: none). */
export interface HandleCount {
  readonly handleId: string;
  readonly blockCidr: string;
  readonly count: number;
  readonly maxAllocPerVersion?: number;
}

/**
 * The handle with `count` more addresses in `blockCidr` (a new handle when `current` is
 * undefined), or, when `maxAllocPerVersion > 0` and the handle's addresses of that IP version would
 * exceed it, how many it holds of that version.
 */
export function addToHandle(
  current: IpamHandle | undefined,
  args: HandleCount,
): { readonly value: IpamHandle } | { readonly over: number } {
  const block = current?.block ?? {};
  if (args.maxAllocPerVersion && args.maxAllocPerVersion > 0) {
    const version = ipVersionOf(args.blockCidr);
    const total = Object.entries(block)
      .filter(([cidr]) => ipVersionOf(cidr) === version)
      .reduce((n, [, c]) => n + c, 0);
    if (total + args.count > args.maxAllocPerVersion) return { over: total };
  }
  const counted = { ...block, [args.blockCidr]: (block[args.blockCidr] ?? 0) + args.count };
  return {
    value: current
      ? { ...current, block: counted }
      : { handleId: args.handleId, block: counted, deleted: false },
  };
}

/**
 * Adds `count` addresses in `blockCidr` to a handle (creating it), CAS-retried. With
 * `maxAllocPerVersion > 0`, refuses (as a value, not an error) when the handle's addresses of that
 * IP version would exceed it. Called before the block write, so a crash can only over-count.
 */
export async function incrementHandle(
  ctx: IpamContext,
  args: HandleCount,
): Promise<IncrementResult> {
  const key = handleKey(args.handleId);
  // Most handles are new (one per container): try to create first, so the common case is one write.
  let exists = false;
  return withCasRetry(
    async (): Promise<IncrementResult> => {
      if (!exists) {
        const next = addToHandle(undefined, args);
        if ('over' in next) return { ok: false, currentCount: next.over };
        try {
          await ctx.ds.create({ key, value: next.value });
          return { ok: true };
        } catch (e) {
          if (!isIpamError(e, 'AlreadyExists')) throw e;
          exists = true;
        }
      }
      let current;
      try {
        current = await ctx.ds.get(key);
      } catch (e) {
        if (!isIpamError(e, 'DoesNotExist')) throw e;
        // Deleted since: create it on the next attempt.
        exists = false;
        throw new IpamError('UpdateConflict', `handle ${args.handleId} deleted concurrently`);
      }
      const next = addToHandle(current.value, args);
      if ('over' in next) return { ok: false, currentCount: next.over };
      await ctx.ds.update({ ...current, value: next.value });
      return { ok: true };
    },
    { what: `handle ${args.handleId}` },
  );
}

/**
 * Removes `count` addresses in `blockCidr` from a handle, deleting the handle when it holds none,
 * CAS-retried. A missing handle or block entry is not an error (a crash can leave handles behind
 * or ahead); counts never go below zero.
 */
export async function decrementHandle(
  ctx: IpamContext,
  args: { handleId: string; blockCidr: string; count: number },
): Promise<void> {
  const key = handleKey(args.handleId);
  await withCasRetry(
    async () => {
      let current;
      try {
        current = await ctx.ds.get(key);
      } catch (e) {
        if (isIpamError(e, 'DoesNotExist')) return;
        throw e;
      }
      const block = { ...current.value.block };
      const left = (block[args.blockCidr] ?? 0) - args.count;
      if (left > 0) block[args.blockCidr] = left;
      else delete block[args.blockCidr];
      if (Object.keys(block).length === 0) {
        try {
          await ctx.ds.delete(key, {
            revision: current.revision,
            ...(current.uid !== undefined && { uid: current.uid }),
          });
        } catch (e) {
          if (!isIpamError(e, 'DoesNotExist')) throw e;
        }
      } else {
        await ctx.ds.update({ ...current, value: { ...current.value, block } });
      }
    },
    { what: `handle ${args.handleId}` },
  );
}

/** The report of a {@link decrementHandle} that failed after its addresses were released. */
export const handleNotDecremented = (facts: {
  handle: string;
  cidr: string;
  cause: unknown;
}): IpamReport => ({
  level: 'warning',
  message: 'Failed to decrement handle',
  operation: 'decrementHandle',
  ...facts,
});
