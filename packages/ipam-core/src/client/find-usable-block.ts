import type { AddressFilter } from '@netledger/accounting';
import { parseCidr } from '@netledger/accounting';
import {
  numFreeAddresses,
  isBlockEmpty,
  parseAffinity,
  affinityString,
} from '../block/block-queries.js';
import type { IpamConfig } from '../config/ipam-config.js';
import { IpamError, isIpamError } from '../errors.js';
import type { IPPool } from '../model/resources.js';
import { queryBlock, releaseBlockAffinity } from './block-reader-writer.js';
import { randomBlockWalk } from './block-walk.js';
import type { AffinityConfig, IpamContext } from './ipam-context.js';
import { reportFailure } from './ipam-report.js';

/** An empty block becomes reclaimable by another host this long after it was claimed. */
const EMPTY_BLOCK_MIN_RECLAIM_AGE_MS = 60_000;

interface ReclaimCandidate {
  readonly cidr: string;
  readonly owner: AffinityConfig;
  readonly claimTimeMs: number;
  readonly sequenceNumber: bigint;
}

/**
 * Finds a subnet for a new block: the first one along the host's walk of each pool (in pool
 * order) with no block, or with our own block and room in it; failing that, an empty block of
 * another host claimed over a minute ago, released (guarded by its sequence number) so we can
 * claim it. Reads blocks one at a time along the walk instead of listing every block, so a claim
 * in a sparse pool costs a few reads. A candidate that cannot be released is reported and skipped.
 * Throws `NoFreeBlocks` when there is none, `NoQualifiedPool` without pools.
 */
export async function findUsableBlock(
  ctx: IpamContext,
  args: {
    affinity: AffinityConfig;
    pools: readonly IPPool[];
    reservations: AddressFilter;
    config: IpamConfig;
  },
): Promise<string> {
  if (args.pools.length === 0) {
    throw new IpamError(
      'NoQualifiedPool',
      `no configured Calico pools for ${affinityString(args.affinity.affinityType, args.affinity.host)}`,
    );
  }
  const ours = affinityString(args.affinity.affinityType, args.affinity.host);
  const candidates: ReclaimCandidate[] = [];
  for (const pool of args.pools) {
    const walk = randomBlockWalk({
      poolCidr: pool.spec.cidr,
      blockSize: pool.spec.blockSize!,
      host: args.affinity.host,
      timeSeed: Math.floor(ctx.clock.now() * 1000 + ctx.random.next() * 1000),
    });
    for (const subnet of walk) {
      if (args.reservations.matchesWholeCidr(parseCidr(subnet))) continue;
      let loaded;
      try {
        loaded = await queryBlock(ctx, subnet, args.config.ipCooldownSeconds);
      } catch (e) {
        if (isIpamError(e, 'DoesNotExist')) return subnet;
        throw e;
      }
      const free = numFreeAddresses(loaded.block, args.reservations);
      if (loaded.block.affinity === ours && free !== 0) return subnet;
      const owner = parseAffinity(loaded.block.affinity);
      if (owner && free !== 0 && isBlockEmpty(loaded.block)) {
        candidates.push({
          cidr: subnet,
          owner: { affinityType: owner.type, host: owner.host },
          claimTimeMs: loaded.block.affinityClaimTime
            ? Date.parse(loaded.block.affinityClaimTime)
            : 0,
          sequenceNumber: loaded.kv.value.sequenceNumber,
        });
      }
    }
  }
  for (const c of candidates) {
    if (ctx.clock.now() - c.claimTimeMs < EMPTY_BLOCK_MIN_RECLAIM_AGE_MS) continue;
    try {
      await releaseBlockAffinity(ctx, c.owner, {
        cidr: c.cidr,
        requireEmpty: true,
        requiredSequenceNumber: c.sequenceNumber,
        cooldownSeconds: args.config.ipCooldownSeconds,
      });
      return c.cidr;
    } catch (e) {
      if (!(e instanceof IpamError)) throw e;
      reportFailure(ctx, {
        level: 'warning',
        message: 'Failed to release affinity while trying to reclaim block',
        operation: 'reclaimBlock',
        cidr: c.cidr,
        host: c.owner.host,
        cause: e,
      });
    }
  }
  // Calico's noFreeBlocksError, with its message; callers turn it into borrowing or a message.
  throw new IpamError('NoFreeBlocks', 'No Free Blocks');
}
