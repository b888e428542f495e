import { ipsByHandleInBlock } from '../block/block-queries.js';
import { isIpamError } from '../errors.js';
import { ipVersionOf } from '../model/keys.js';
import { queryBlock } from './block-reader-writer.js';
import type { IpamContext } from './ipam-context.js';

/**
 * Addresses held by a handle, found through the handle's block list (no scan of all blocks).
 * `DoesNotExist` if the handle does not exist; blocks that cannot be read are skipped.
 */
export async function ipsByHandle(
  ctx: IpamContext,
  handleId: string,
  cooldownSeconds: number,
): Promise<string[]> {
  const handle = await ctx.ds.get({ kind: 'IPAMHandle', handleId });
  const out: string[] = [];
  for (const cidr of Object.keys(handle.value.block)) {
    try {
      const { block } = await queryBlock(ctx, cidr, cooldownSeconds);
      out.push(...ipsByHandleInBlock(block, handleId));
    } catch (e) {
      if (!isIpamError(e, 'DoesNotExist')) throw e;
    }
  }
  return out;
}

/**
 * The existing addresses of a capped handle (KubeVirt), if it already holds `num` of `version`:
 * returned with host masks, as Calico does. Undefined while a concurrent allocation is in flight.
 */
export async function existingAllocationsForCappedHandle(
  ctx: IpamContext,
  args: { handleId: string; num: number; version: 4 | 6; cooldownSeconds: number },
): Promise<string[] | undefined> {
  let ips: string[];
  try {
    ips = await ipsByHandle(ctx, args.handleId, args.cooldownSeconds);
  } catch (e) {
    if (isIpamError(e, 'DoesNotExist')) return undefined;
    throw e;
  }
  const mine = ips.filter((ip) => ipVersionOf(ip) === args.version);
  if (mine.length < args.num) return undefined;
  return mine.slice(0, args.num).map((ip) => `${ip}/${args.version === 4 ? 32 : 128}`);
}
