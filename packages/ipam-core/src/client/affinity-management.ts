import { cidrContainsCidr, parseCidr } from '@netledger/accounting';
import { parseAffinity } from '../block/block-queries.js';
import { withCasRetry } from '../cas-retry.js';
import { IpamError, isIpamError } from '../errors.js';
import type { IPPool } from '../model/resources.js';
import { poolCidrOf } from '../pools/pool-cidr.js';
import {
  claimAffineBlock,
  getPendingAffinity,
  releaseBlockAffinity,
} from './block-reader-writer.js';
import type { ReleaseAffinityOptions } from './block-reader-writer.js';
import { sequentialBlockWalk } from './block-walk.js';
import type { AffinityConfig, IpamContext } from './ipam-context.js';
import { reportFailure } from './ipam-report.js';
import { loadConfig, loadPools } from './ipam-reads.js';

/** Validates a CIDR for Claim/ReleaseAffinity and returns its pool and the blocks it covers (inside the pool). */
async function blocksOf(
  ctx: IpamContext,
  cidr: string,
): Promise<{ pool: IPPool; blocks: string[] }> {
  let c;
  try {
    c = parseCidr(cidr);
  } catch (e) {
    throw new IpamError(
      'InvalidArgument',
      `invalid CIDR ${JSON.stringify(cidr)}: ${(e as Error).message}`,
    );
  }
  const pool = (await loadPools(ctx)).find((p) => {
    const pc = poolCidrOf(p);
    return (
      pc !== undefined &&
      pc.version === c.version &&
      (cidrContainsCidr(pc, c) || cidrContainsCidr(c, pc))
    );
  });
  if (!pool)
    throw new IpamError(
      'InvalidArgument',
      `The requested CIDR (${cidr}) is not within any configured pools.`,
    );
  const blockSize = pool.spec.blockSize!;
  if (c.prefix > blockSize)
    throw new IpamError(
      'InvalidArgument',
      `The requested CIDR (${cidr}) is smaller than the minimum.`,
    );
  // Unlike Calico, a CIDR larger than its pool is clipped to the pool instead of walking past its end.
  const pc = poolCidrOf(pool)!;
  const walk = cidrContainsCidr(pc, c) ? cidr : pool.spec.cidr;
  return { pool, blocks: [...sequentialBlockWalk(walk, blockSize)] };
}

/**
 * Claims every block of `cidr` for a host: `claimed` includes blocks it already held, `failed`
 * those held by someone else or by nobody. Idempotent.
 */
export async function claimAffinity(
  ctx: IpamContext,
  cidr: string,
  a: AffinityConfig,
): Promise<{ claimed: string[]; failed: string[] }> {
  const { blocks } = await blocksOf(ctx, cidr);
  const config = await loadConfig(ctx);
  const claimed: string[] = [];
  const failed: string[] = [];
  for (const block of blocks) {
    const won = await withCasRetry(async () => {
      const pending = await getPendingAffinity(ctx, a, block);
      try {
        await claimAffineBlock(ctx, pending, {
          owner: a,
          cooldownSeconds: config.ipCooldownSeconds,
        });
        return true;
      } catch (e) {
        if (isIpamError(e, 'BlockClaimConflict')) return false;
        throw e;
      }
    });
    (won ? claimed : failed).push(block);
  }
  return { claimed, failed };
}

/** Releases a host's affinity for one block, retrying conflicts; a block no longer ours or gone is fine. */
async function releaseOne(
  ctx: IpamContext,
  a: AffinityConfig,
  options: ReleaseAffinityOptions,
): Promise<void> {
  await withCasRetry(async () => {
    try {
      await releaseBlockAffinity(ctx, a, options);
    } catch (e) {
      if (!isIpamError(e, 'BlockClaimConflict', 'DoesNotExist')) throw e;
    }
  });
}

/** Releases a host's affinity for every block of `cidr`; `BlockNotEmpty` stops it when `mustBeEmpty`. */
export async function releaseAffinity(
  ctx: IpamContext,
  args: { cidr: string; host: string; mustBeEmpty: boolean },
): Promise<void> {
  const { blocks } = await blocksOf(ctx, args.cidr);
  const config = await loadConfig(ctx);
  for (const block of blocks) {
    await releaseOne(
      ctx,
      { affinityType: 'host', host: args.host },
      { cidr: block, requireEmpty: args.mustBeEmpty, cooldownSeconds: config.ipCooldownSeconds },
    );
  }
}

/**
 * Releases every affinity of a host (v4 then v6). Carries on past a block it cannot release and
 * throws the last such error at the end; the earlier ones are reported.
 */
export async function releaseHostAffinities(
  ctx: IpamContext,
  a: AffinityConfig,
  options: { mustBeEmpty: boolean },
): Promise<void> {
  const config = await loadConfig(ctx);
  let last: { error: Error; cidr: string } | undefined;
  for (const version of [4, 6] as const) {
    const { items } = await ctx.ds.list({
      kind: 'BlockAffinity',
      host: a.host,
      affinityType: a.affinityType,
      ipVersion: version,
    });
    for (const kv of items) {
      try {
        await releaseOne(ctx, a, {
          cidr: kv.key.cidr,
          requireEmpty: options.mustBeEmpty,
          cooldownSeconds: config.ipCooldownSeconds,
        });
      } catch (e) {
        // Only the last failure is thrown (as in Calico): the one it replaces is reported.
        if (last) {
          reportFailure(ctx, {
            level: 'error',
            message: 'Error releasing affinity',
            operation: 'releaseHostAffinity',
            cidr: last.cidr,
            host: a.host,
            cause: last.error,
          });
        }
        last = { error: e instanceof Error ? e : new Error(String(e)), cidr: kv.key.cidr };
      }
    }
  }
  if (last) throw last.error;
}

/** Releases every affinity (of any host and type) for blocks inside a pool, emptiness not required. */
export async function releasePoolAffinities(ctx: IpamContext, poolCidr: string): Promise<void> {
  const pool = parseCidr(poolCidr, { strict: false });
  const config = await loadConfig(ctx);
  await withCasRetry(async () => {
    const { items } = await ctx.ds.list({ kind: 'BlockAffinity' });
    let moved = false;
    for (const kv of items) {
      if (!cidrContainsCidr(pool, parseCidr(kv.key.cidr))) continue;
      const a = { affinityType: kv.key.affinityType, host: kv.key.host };
      await withCasRetry(async () => {
        try {
          await releaseBlockAffinity(ctx, a, {
            cidr: kv.key.cidr,
            requireEmpty: false,
            cooldownSeconds: config.ipCooldownSeconds,
          });
        } catch (e) {
          if (isIpamError(e, 'BlockClaimConflict')) moved = true;
          else if (!isIpamError(e, 'DoesNotExist')) throw e;
        }
      });
    }
    // A block changed hands while we worked: list again.
    if (moved)
      throw new IpamError('UpdateConflict', `affinities in ${poolCidr} changed during release`);
  });
}

/**
 * Releases the affinity of one block, whoever holds it. Nothing to do for an unaffine block.
 * `mustBeEmpty` is a hard precondition (`BlockNotEmpty`). Unlike Calico, CAS conflicts are retried:
 * transient errors never reach callers.
 */
export async function releaseBlockAffinityOf(
  ctx: IpamContext,
  blockCidr: string,
  options: { mustBeEmpty: boolean },
): Promise<void> {
  const config = await loadConfig(ctx);
  const block = await ctx.ds.get({ kind: 'IPAMBlock', cidr: blockCidr });
  const owner = parseAffinity(block.value.affinity);
  if (!owner) return;
  await releaseOne(
    ctx,
    { affinityType: owner.type, host: owner.host },
    {
      cidr: blockCidr,
      requireEmpty: options.mustBeEmpty,
      cooldownSeconds: config.ipCooldownSeconds,
    },
  );
}

/** Releases all of a host's affinities (emptiness not required) and deletes its legacy IPAM host object. */
export async function removeIpamHost(ctx: IpamContext, a: AffinityConfig): Promise<void> {
  await releaseHostAffinities(ctx, a, { mustBeEmpty: false });
  await withCasRetry(async () => {
    try {
      const kv = await ctx.ds.get({ kind: 'IPAMHost', host: a.host });
      await ctx.ds.delete(kv.key, { revision: kv.revision });
    } catch (e) {
      if (!isIpamError(e, 'DoesNotExist', 'OperationNotSupported')) throw e;
    }
  });
}
