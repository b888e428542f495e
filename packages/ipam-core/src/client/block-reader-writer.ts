import { affinityString, isBlockEmpty } from '../block/block-queries.js';
import { garbageCollectBlock } from '../block/garbage-collect.js';
import { newBlock } from '../block/new-block.js';
import type { HostReservedAttr } from '../block/new-block.js';
import { toRfc3339Seconds } from '../block/block-release.js';
import type { KVPair } from '../datastore/datastore.js';
import { IpamError, isIpamError } from '../errors.js';
import type { AllocationBlock } from '../model/block.js';
import type { BlockAffinity } from '../model/block-affinity.js';
import type { DatastoreKey } from '../model/keys.js';
import { initialSequenceNumber } from './clock.js';
import type { AffinityConfig, IpamContext } from './ipam-context.js';
import { reportFailure } from './ipam-report.js';

/** A block as read (GC'd for the current cooldown) with the pair it was read from. */
export interface LoadedBlock {
  readonly kv: KVPair<'IPAMBlock'>;
  readonly block: AllocationBlock;
}

export const blockKey = (cidr: string): DatastoreKey<'IPAMBlock'> => ({ kind: 'IPAMBlock', cidr });
export const affinityKey = (a: AffinityConfig, cidr: string): DatastoreKey<'BlockAffinity'> => ({
  kind: 'BlockAffinity',
  host: a.host,
  affinityType: a.affinityType,
  cidr,
});

/** Reads a block and garbage-collects it in memory (write paths persist that with their write). */
export async function queryBlock(
  ctx: IpamContext,
  cidr: string,
  cooldownSeconds: number,
): Promise<LoadedBlock> {
  const kv = await ctx.ds.get(blockKey(cidr));
  return {
    kv,
    block: garbageCollectBlock(kv.value, { nowMs: ctx.clock.now(), cooldownSeconds }).block,
  };
}

/** A block's new value over the revision it was read at, its sequence number bumped. */
export const blockRewrite = (
  kv: KVPair<'IPAMBlock'>,
  block: AllocationBlock,
): KVPair<'IPAMBlock'> => ({
  ...kv,
  value: { ...block, sequenceNumber: block.sequenceNumber + 1n },
});

/** CAS-writes a block over the revision it was read at, bumping its sequence number. */
export function updateBlock(
  ctx: IpamContext,
  kv: KVPair<'IPAMBlock'>,
  block: AllocationBlock,
): Promise<KVPair<'IPAMBlock'>> {
  return ctx.ds.update(blockRewrite(kv, block));
}

/** CAS-deletes a block at the revision it was read at. */
export async function deleteBlock(ctx: IpamContext, kv: KVPair<'IPAMBlock'>): Promise<void> {
  await ctx.ds.delete(kv.key, {
    revision: kv.revision,
    ...(kv.uid !== undefined && { uid: kv.uid }),
  });
}

async function setAffinityState(
  ctx: IpamContext,
  kv: KVPair<'BlockAffinity'>,
  state: BlockAffinity['state'],
): Promise<KVPair<'BlockAffinity'>> {
  return ctx.ds.update({ ...kv, value: { ...kv.value, state } });
}

/** Deletes an affinity at its revision; an affinity already gone is fine. */
async function deleteAffinity(ctx: IpamContext, kv: KVPair<'BlockAffinity'>): Promise<void> {
  try {
    await ctx.ds.delete(kv.key, {
      revision: kv.revision,
      ...(kv.uid !== undefined && { uid: kv.uid }),
    });
  } catch (e) {
    if (!isIpamError(e, 'DoesNotExist')) throw e;
  }
}

/**
 * Phase one of a claim: create a `pending` affinity, or take the existing one (re-marking it
 * pending if it is pending deletion).
 */
export async function getPendingAffinity(
  ctx: IpamContext,
  a: AffinityConfig,
  cidr: string,
): Promise<KVPair<'BlockAffinity'>> {
  try {
    return await ctx.ds.create({
      key: affinityKey(a, cidr),
      value: { state: 'pending', deleted: false },
    });
  } catch (e) {
    if (!isIpamError(e, 'AlreadyExists')) throw e;
  }
  const kv = await ctx.ds.get(affinityKey(a, cidr));
  // Only pendingDeletion needs the write: re-marking a pending affinity pending would bump its
  // revision and fail a concurrent claimer's confirm, and claimers doing that to each other
  // livelock until MaxRetries.
  return kv.value.state === 'pendingDeletion' ? setAffinityState(ctx, kv, 'pending') : kv;
}

/** Phase two: mark the affinity confirmed (or accept that a racing claimer already did). */
async function confirmAffinity(
  ctx: IpamContext,
  kv: KVPair<'BlockAffinity'>,
): Promise<KVPair<'BlockAffinity'>> {
  try {
    return await setAffinityState(ctx, kv, 'confirmed');
  } catch (e) {
    // Only asks whether a racing claimer confirmed it: a failed read means we cannot tell, and
    // the confirm's own error is what the caller gets (as in Calico).
    const current = await ctx.ds.get(kv.key).catch(() => undefined);
    if (current?.value.state === 'confirmed') return current;
    throw e;
  }
}

/** What a claim needs: whose affinity it is, and how to create the block. */
export interface ClaimOptions {
  readonly owner: AffinityConfig;
  readonly hostReserved?: HostReservedAttr;
  readonly cooldownSeconds: number;
}

/**
 * Creates the block for a pending affinity and confirms the affinity. If the block already exists
 * with our affinity, confirms and returns it; with someone else's (or none), drops our affinity
 * and throws `BlockClaimConflict`.
 */
export async function claimAffineBlock(
  ctx: IpamContext,
  aff: KVPair<'BlockAffinity'>,
  options: ClaimOptions,
): Promise<LoadedBlock> {
  const cidr = aff.key.cidr;
  const affinity = affinityString(options.owner.affinityType, options.owner.host);
  const block = newBlock({
    cidr,
    sequenceNumber: initialSequenceNumber(ctx.clock, ctx.random),
    affinity,
    affinityClaimTime: toRfc3339Seconds(ctx.clock.now()),
    ...(options.hostReserved && { hostReserved: options.hostReserved }),
  });
  try {
    const kv = await ctx.ds.create({ key: blockKey(cidr), value: block });
    await confirmAffinity(ctx, aff);
    return { kv, block };
  } catch (e) {
    if (!isIpamError(e, 'AlreadyExists')) throw e;
  }
  const existing = await queryBlock(ctx, cidr, options.cooldownSeconds);
  if (existing.block.affinity === affinity) {
    await confirmAffinity(ctx, aff);
    return existing;
  }
  // Best effort: an affinity left behind is found stale and deleted by the host's next
  // assignment (getBlockFromAffinity), as Calico leaves it.
  await deleteAffinity(ctx, aff).catch((cause: unknown) =>
    reportFailure(ctx, {
      level: 'error',
      message: 'Error deleting block affinity',
      operation: 'deleteAffinity',
      cidr,
      host: options.owner.host,
      cause,
    }),
  );
  throw new IpamError(
    'BlockClaimConflict',
    `${cidr} already claimed by ${existing.block.affinity ?? 'nobody'}`,
    {
      identifier: cidr,
    },
  );
}

/**
 * The block behind an affinity. A missing block is re-created (recovery from a crash mid-claim);
 * a block affine elsewhere means our affinity is stale (deleted, `StaleAffinity`); an unconfirmed
 * affinity is confirmed after a no-op block write that fences out concurrent writers.
 */
export async function getBlockFromAffinity(
  ctx: IpamContext,
  aff: KVPair<'BlockAffinity'>,
  options: ClaimOptions,
): Promise<LoadedBlock> {
  const a = options.owner;
  let loaded: LoadedBlock;
  try {
    loaded = await queryBlock(ctx, aff.key.cidr, options.cooldownSeconds);
  } catch (e) {
    if (!isIpamError(e, 'DoesNotExist')) throw e;
    const pending = await setAffinityState(ctx, aff, 'pending');
    return claimAffineBlock(ctx, pending, options);
  }
  if (loaded.block.affinity !== affinityString(a.affinityType, a.host)) {
    await deleteAffinity(ctx, aff);
    throw new IpamError('StaleAffinity', `affinity for ${aff.key.cidr} is stale`, {
      identifier: aff.key.cidr,
    });
  }
  if (aff.value.state !== 'confirmed') {
    const pending = await setAffinityState(ctx, aff, 'pending');
    const kv = await updateBlock(ctx, loaded.kv, loaded.block);
    await setAffinityState(ctx, pending, 'confirmed');
    return { kv, block: kv.value };
  }
  return loaded;
}

/** What {@link releaseBlockAffinity} releases, and on which conditions. */
export interface ReleaseAffinityOptions {
  readonly cidr: string;
  readonly requireEmpty: boolean;
  /** Release only if the block is still at this sequence number (reclaim). */
  readonly requiredSequenceNumber?: bigint;
  readonly cooldownSeconds: number;
}

/**
 * Releases a host's affinity for a block: affinity to `pendingDeletion`, then the block deleted
 * (if empty) or made unaffine, both CAS against the block as read, then the affinity deleted. A
 * concurrent allocation makes the block write fail, leaving the affinity pending deletion for the
 * next allocation to re-confirm. Codes: `DoesNotExist`, `BlockClaimConflict` (the block is
 * affine elsewhere; our stale affinity is removed), `BlockNotEmpty`, `BadSequenceNumber`.
 */
export async function releaseBlockAffinity(
  ctx: IpamContext,
  a: AffinityConfig,
  options: ReleaseAffinityOptions,
): Promise<void> {
  const { cidr } = options;
  if (!a.host)
    throw new IpamError('InvalidArgument', 'Hostname must be specified to release block affinity');
  const aff = await ctx.ds.get(affinityKey(a, cidr));
  const { kv, block } = await queryBlock(ctx, cidr, options.cooldownSeconds);
  if (
    options.requiredSequenceNumber !== undefined &&
    options.requiredSequenceNumber !== kv.value.sequenceNumber
  ) {
    throw new IpamError('BadSequenceNumber', 'IPAM block updated since we last read it', {
      identifier: cidr,
    });
  }
  if (block.affinity !== undefined && block.affinity !== affinityString(a.affinityType, a.host)) {
    // Best effort: the conflict is what the caller needs to know; a stale affinity left behind
    // is deleted when the host next looks at it (getBlockFromAffinity).
    await deleteAffinity(ctx, aff).catch((cause: unknown) =>
      reportFailure(ctx, {
        level: 'warning',
        message: 'Failed to delete stale affinity',
        operation: 'deleteAffinity',
        cidr,
        host: a.host,
        cause,
      }),
    );
    throw new IpamError('BlockClaimConflict', `${cidr} already claimed by ${block.affinity}`, {
      identifier: cidr,
    });
  }
  const empty = isBlockEmpty(block);
  if (options.requireEmpty && !empty) {
    throw new IpamError('BlockNotEmpty', `block '${cidr}' is not empty`, { identifier: cidr });
  }
  const pendingDeletion = await setAffinityState(ctx, aff, 'pendingDeletion');
  if (empty) {
    try {
      await deleteBlock(ctx, kv);
    } catch (e) {
      if (!isIpamError(e, 'DoesNotExist')) throw e;
    }
  } else {
    const { affinity: _a, affinityClaimTime: _t, ...unaffine } = block;
    await updateBlock(ctx, kv, unaffine);
  }
  await deleteAffinity(ctx, pendingDeletion);
}
