import type { HostReservedAttr } from '../block/new-block.js';
import { IpamError, isIpamError } from '../errors.js';
import { affinityFor } from './auto-assign.js';
import { checkPoolFamily, checkRequestedPools } from './check-pool-family.js';
import { findOrClaimBlock } from './find-or-claim-block.js';
import type { IpamContext } from './ipam-context.js';
import { loadConfig, loadPools, loadReservations } from './ipam-reads.js';
import { prepareAffinityBlocksForHost } from './prepare-affinity-blocks.js';

/** Arguments of `ensureBlock` (Calico's `BlockArgs`): a family is handled only when its reservation is given. */
export interface BlockArgs {
  readonly hostname: string;
  readonly ipv4Pools?: readonly string[];
  readonly ipv6Pools?: readonly string[];
  readonly hostReservedAttrIPv4s?: HostReservedAttr;
  readonly hostReservedAttrIPv6s?: HostReservedAttr;
}

/**
 * Makes sure the host has a block (Windows: reserved addresses at both ends) for each family
 * whose reservation is given and returns its CIDR; a second call returns the same block. The
 * host's block cap does not apply, as in Calico.
 */
export async function ensureBlock(
  ctx: IpamContext,
  args: BlockArgs,
): Promise<{ v4?: string; v6?: string }> {
  checkPoolFamily(4, args.ipv4Pools);
  checkPoolFamily(6, args.ipv6Pools);
  const [pools, reservations, config] = await Promise.all([
    loadPools(ctx),
    loadReservations(ctx),
    loadConfig(ctx),
  ]);
  // Only families with a host reservation are handled; all are checked before any block is claimed.
  const families = ([4, 6] as const).flatMap((version) => {
    const hostReserved = version === 4 ? args.hostReservedAttrIPv4s : args.hostReservedAttrIPv6s;
    const requested = version === 4 ? args.ipv4Pools : args.ipv6Pools;
    return hostReserved ? [{ version, requested, hostReserved }] : [];
  });
  checkRequestedPools(pools, families);
  const out: { v4?: string; v6?: string } = {};
  for (const { version, requested, hostReserved } of families) {
    const affinity = affinityFor('Workload', args.hostname);
    const prepared = await prepareAffinityBlocksForHost(ctx, {
      affinity,
      version,
      use: 'Workload',
      ...(requested && requested.length > 0 && { requestedPools: requested }),
      hostReserved,
      pools,
      config,
    });
    try {
      const found = await findOrClaimBlock(
        ctx,
        {
          affinity,
          pools: prepared.pools,
          remainingAffineBlocks: [...prepared.affineBlocks],
          allowNewClaim: true,
          reservations,
          hostReserved,
        },
        { config, minFree: 0 },
      );
      out[version === 4 ? 'v4' : 'v6'] = found.block.cidr;
    } catch (e) {
      if (isIpamError(e, 'NoFreeBlocks'))
        throw new IpamError(
          'NoQualifiedPool',
          `no free block for ${args.hostname} in the IPv${version} pools`,
          { cause: e },
        );
      throw e;
    }
  }
  return out;
}
