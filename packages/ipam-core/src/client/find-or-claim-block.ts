import type { AddressFilter } from '@netledger/accounting';
import { parseCidr } from '@netledger/accounting';
import { withCasRetry, DATASTORE_RETRIES } from '../cas-retry.js';
import { affinityString, numFreeAddresses } from '../block/block-queries.js';
import type { HostReservedAttr } from '../block/new-block.js';
import type { IpamConfig } from '../config/ipam-config.js';
import type { KVPair } from '../datastore/datastore.js';
import { IpamError, isIpamError } from '../errors.js';
import type { IPPool } from '../model/resources.js';
import type { LoadedBlock } from './block-reader-writer.js';
import {
  affinityKey,
  getBlockFromAffinity,
  getPendingAffinity,
  hintedBlock,
} from './block-reader-writer.js';
import { findUsableBlock } from './find-usable-block.js';
import type { AffinityConfig, IpamContext } from './ipam-context.js';

/** The walk state of one assignment: pools, affine blocks not tried yet, whether claims are allowed. */
export interface BlockAssignState {
  readonly affinity: AffinityConfig;
  readonly pools: readonly IPPool[];
  /** The host's affinities not tried yet, as listed (re-read only when a retry needs to). */
  readonly remainingAffineBlocks: KVPair<'BlockAffinity'>[];
  allowNewClaim: boolean;
  readonly reservations: AddressFilter;
  readonly hostReserved?: HostReservedAttr;
  /** Take an affine block from the client's block hints, unread (autoAssign only: see FoundBlock). */
  readonly useBlockHints?: boolean;
}

/** A block to allocate from, and whether this call claimed it. */
export interface FoundBlock extends LoadedBlock {
  readonly newlyClaimed: boolean;
  /**
   * Set when the block is this client's hint for that affinity, not a fresh read: it may be
   * stale. If the write on it fails, the caller puts the affinity back in front of
   * `remainingAffineBlocks` (the hint is gone by then) so the next call takes the normal path.
   */
  readonly hintFor?: KVPair<'BlockAffinity'>;
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
 * when automatic allocation of blocks is off, and `NoFreeBlocksError` when no pool has room.
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
    const hinted =
      state.useBlockHints &&
      usableHint(ctx, state, { listed, cooldownSeconds: config.ipCooldownSeconds, minFree });
    if (hinted) return { ...hinted, newlyClaimed: false, hintFor: listed };
    let found: LoadedBlock | undefined;
    try {
      found = await withCasRetry(async (attempt) => {
        const aff = attempt === 0 ? listed : await ctx.ds.get(affinityKey(state.affinity, cidr));
        return getBlockFromAffinity(ctx, aff, claimOptions);
      });
    } catch (e) {
      if (!(e instanceof IpamError)) throw e;
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

/**
 * The hinted block of a confirmed affinity, if it is still ours and looks like it has room. A
 * hint that looks full is not trusted either way: the normal path reads the block afresh.
 */
function usableHint(
  ctx: IpamContext,
  state: BlockAssignState,
  hint: { listed: KVPair<'BlockAffinity'>; cooldownSeconds: number; minFree: number },
): LoadedBlock | undefined {
  const { listed, minFree } = hint;
  if (listed.value.state !== 'confirmed') return undefined;
  const hinted = hintedBlock(ctx, listed.key.cidr, hint.cooldownSeconds);
  if (!hinted) return undefined;
  if (hinted.block.affinity !== affinityString(state.affinity.affinityType, state.affinity.host))
    return undefined;
  const free = numFreeAddresses(hinted.block, state.reservations);
  return free > 0 && free >= minFree ? hinted : undefined;
}
