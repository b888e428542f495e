import type { PoolUtilization } from '../utilization/utilization.js';
import { computeUtilization } from '../utilization/utilization.js';
import type { IpamContext } from './ipam-context.js';
import { loadPools, loadReservationResources } from './ipam-reads.js';

/**
 * The client's `getUtilization`: reads pools, blocks and reservations (in parallel) and computes
 * each pool's (optionally only `pools`', by name or CIDR) capacity, use and reservations. Reads
 * only; fails with the store's error if a read fails.
 */
export async function getUtilization(
  ctx: IpamContext,
  a?: { pools?: readonly string[] },
): Promise<PoolUtilization[]> {
  const [pools, blocks, reservations] = await Promise.all([
    loadPools(ctx),
    ctx.ds.list({ kind: 'IPAMBlock' }),
    loadReservationResources(ctx),
  ]);
  return computeUtilization({
    pools,
    blocks: blocks.items.map((kv) => kv.value),
    reservations,
    ...(a?.pools && { wanted: a.pools }),
  });
}
