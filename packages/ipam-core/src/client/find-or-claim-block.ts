import type { AddressFilter } from '@netledger/accounting';
import { parseCidr } from '@netledger/accounting';
import { withCasRetry, DATASTORE_RETRIES } from '../cas-retry.js';
import { numFreeAddresses } from '../block/block-queries.js';
import type { HostReservedAttr } from '../block/new-block.js';
import type { IpamConfig } from '../config/ipam-config.js';
import type { KVPair } from '../datastore/datastore.js';
import { IpamError, isIpamError } from '../errors.js';
import type { IPPool } from '../model/resources.js';
import type { LoadedBlock } from './block-reader-writer.js';
import { affinityKey, getBlockFromAffinity, getPendingAffinity } from './block-reader-writer.js';
import { findUsableBlock } from './find-usable-block.js';
import type { AffinityConfig, IpamContext } from './ipam-context.js';
import { reportFailure } from './ipam-report.js';

/** The walk state of one assignment: pools, affine blocks not tried yet, whether claims are allowed. */
export interface BlockAssignState {
  readonly affinity: AffinityConfig;
  readonly pools: readonly IPPool[];
  /** The host's affinities not tried yet, as listed (re-read only when a retry needs to). */
  readonly remainingAffineBlocks: KVPair<'BlockAffinity'>[];
  allowNewClaim: boolean;
  readonly reservations: AddressFilter;
  readonly hostReserved?: HostReservedAttr;
}

/** A block to allocate from, and whether this call claimed it. */
export interface FoundBlock extends LoadedBlock {
  readonly newlyClaimed: boolean;
}

/** What {@link findOrClaimBlock} looks for: a block with `minFree` free addresses, under `config`. */
export interface FindBlockOptions {
  readonly config: IpamConfig;
  readonly minFree: number;
}

/**
 * The next block with at least `minFree` free addresses: first the host's remaining affine blocks
 * (each tried once; a missing block is re-created), then a newly claimed one. Throws `BlockLimit`
 * when a claim is needed but not allowed, `InvalidArgument` ('failed to find or claim a block')
 * when automatic allocation of blocks is off, and `NoFreeBlocks` when no pool has room. An affine
 * block that cannot be used is reported and skipped.
 */
export async function findOrClaimBlock(
  ctx: IpamContext,
  state: BlockAssignState,
  options: FindBlockOptions,
): Promise<FoundBlock> {
  const { config, minFree } = options;
  const claimOptions = {
    owner: state.affinity,
    cooldownSeconds: config.ipCooldownSeconds,
    ...(state.hostReserved && { hostReserved: state.hostReserved }),
  };
  while (state.remainingAffineBlocks.length > 0) {
    const listed = state.remainingAffineBlocks.shift()!;
    const cidr = listed.key.cidr;
    if (state.reservations.matchesWholeCidr(parseCidr(cidr))) continue;
    let found: LoadedBlock | undefined;
    try {
      found = await withCasRetry(async (attempt) => {
        const aff = attempt === 0 ? listed : await ctx.ds.get(affinityKey(state.affinity, cidr));
        return getBlockFromAffinity(ctx, aff, claimOptions);
      });
    } catch (e) {
      if (!(e instanceof IpamError)) throw e;
      reportFailure(ctx, {
        level: 'warning',
        message: "Couldn't get block for affinity, try next one",
        operation: 'useAffineBlock',
        cidr,
        host: state.affinity.host,
        cause: e,
      });
      continue;
    }
    if (numFreeAddresses(found.block, state.reservations) >= minFree)
      return { ...found, newlyClaimed: false };
  }
  if (!state.allowNewClaim) {
    throw new IpamError('BlockLimit', 'cannot allocate new block due to per host block limit');
  }
  if (!config.autoAllocateBlocks)
    throw new IpamError('InvalidArgument', 'failed to find or claim a block');
  for (let attempt = 0; attempt < DATASTORE_RETRIES; attempt++) {
    const subnet = await findUsableBlock(ctx, {
      affinity: state.affinity,
      pools: state.pools,
      reservations: state.reservations,
      config,
    });
    let claimed: LoadedBlock;
    try {
      claimed = await withCasRetry(async () => {
        const pending = await getPendingAffinity(ctx, state.affinity, subnet);
        try {
          return await getBlockFromAffinity(ctx, pending, claimOptions);
        } catch (e) {
          // Lost the block to another host: try another subnet, not the same one again.
          if (isIpamError(e, 'BlockClaimConflict', 'StaleAffinity')) throw new ClaimLost();
          throw e;
        }
      });
    } catch (e) {
      if (e instanceof ClaimLost) continue;
      throw e;
    }
    const free = numFreeAddresses(claimed.block, state.reservations);
    if (free >= minFree) return { ...claimed, newlyClaimed: true };
    throw new IpamError(
      'InvalidArgument',
      `Block '${subnet}' has ${free} free ips which is less than ${minFree} ips required.`,
    );
  }
  throw new IpamError('MaxRetries', 'Max retries hit - excessive concurrent IPAM requests');
}

class ClaimLost extends Error {}
