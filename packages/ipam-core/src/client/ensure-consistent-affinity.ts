import { formatCidr } from '@netledger/accounting';
import { blockGeometry } from '../block/block-geometry.js';
import { isBlockEmpty, parseAffinity } from '../block/block-queries.js';
import { withCasRetry } from '../cas-retry.js';
import { isIpamError } from '../errors.js';
import type { AllocationBlock } from '../model/block.js';
import { poolForIp } from '../pools/pool-for-ip.js';
import { selectsNode } from '../pools/pool-qualification.js';
import { releaseBlockAffinity } from './block-reader-writer.js';
import type { IpamContext } from './ipam-context.js';
import type { IpamReport } from './ipam-report.js';
import { loadPools } from './ipam-reads.js';

/**
 * After a release: if the block is now empty, affine to an existing node, and its pool no longer
 * selects that node, release the affinity (and so the block). Best effort: races and a block
 * that filled again are ignored.
 */
export async function ensureConsistentAffinity(
  ctx: IpamContext,
  block: AllocationBlock,
  cooldownSeconds: number,
): Promise<void> {
  const owner = parseAffinity(block.affinity);
  if (!owner || owner.type !== 'host' || !isBlockEmpty(block)) return;
  let labels: Readonly<Record<string, string>>;
  try {
    labels = (await ctx.ds.get({ kind: 'Node', name: owner.host })).value.metadata.labels ?? {};
  } catch (e) {
    if (isIpamError(e, 'DoesNotExist')) return;
    throw e;
  }
  const g = blockGeometry(block.cidr);
  const pool = poolForIp(formatCidr(g.cidr).split('/')[0]!, await loadPools(ctx));
  if (!pool || selectsNode(pool, labels)) return;
  await withCasRetry(async () => {
    try {
      await releaseBlockAffinity(
        ctx,
        { affinityType: 'host', host: owner.host },
        {
          cidr: block.cidr,
          requireEmpty: true,
          cooldownSeconds,
        },
      );
    } catch (e) {
      if (!isIpamError(e, 'BlockClaimConflict', 'BlockNotEmpty', 'DoesNotExist')) throw e;
    }
  });
}

/** The report of an {@link ensureConsistentAffinity} that failed after a release. */
export const affinityNotEnsured = (facts: { cidr: string; cause: unknown }): IpamReport => ({
  level: 'warning',
  message: 'Error ensuring consistent affinity but IP already released. Returning no error.',
  operation: 'ensureConsistentAffinity',
  ...facts,
});
