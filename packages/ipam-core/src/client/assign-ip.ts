import { parseIp } from '@netledger/accounting';
import { attributeOf, handleOf } from '../block/block-attributes.js';
import { assignInBlock } from '../block/block-assign.js';
import { blockGeometry, ipToOrdinal } from '../block/block-geometry.js';
import { affinityString } from '../block/block-queries.js';
import type { HostReservedAttr } from '../block/new-block.js';
import { withCasRetry } from '../cas-retry.js';
import { IpamError, isIpamError } from '../errors.js';
import type { IPPoolAllowedUse } from '../model/resources.js';
import { enabledPools } from '../pools/enabled-pools.js';
import { blockCidrForIp, poolForIp } from '../pools/pool-for-ip.js';
import { affinityFor } from './auto-assign.js';
import type { LoadedBlock } from './block-reader-writer.js';
import { claimAffineBlock, getPendingAffinity, queryBlock } from './block-reader-writer.js';
import type { IpamContext } from './ipam-context.js';
import { loadConfig, loadPools } from './ipam-reads.js';
import { existingAllocationsForCappedHandle } from './ips-by-handle.js';
import { countAndWriteBlock } from './write-counted-block.js';

/** A request for one specific address (Calico's `AssignIPArgs`). */
export interface AssignIpArgs {
  readonly ip: string;
  readonly hostname: string;
  readonly handleId?: string;
  readonly attrs?: Readonly<Record<string, string>>;
  /** Only used when this call creates the block. */
  readonly hostReservedAttr?: HostReservedAttr;
  /** When given, the address's pool must allow it; empty means no check (back-compat). */
  readonly intendedUse?: IPPoolAllowedUse;
  readonly maxAllocToHandlePerIpVersion?: number;
}

/**
 * The enabled pool holding `args.ip`, checked against the intended use; `InvalidArgument` for an
 * address that does not parse, is in no pool, or is in a pool not allowed for that use.
 */
async function poolToAssignFrom(
  ctx: IpamContext,
  args: AssignIpArgs,
): Promise<{ pool: NonNullable<ReturnType<typeof poolForIp>>; addr: ReturnType<typeof parseIp> }> {
  let addr;
  try {
    addr = parseIp(args.ip);
  } catch {
    throw new IpamError('InvalidArgument', `invalid IP address: ${JSON.stringify(args.ip)}`);
  }
  const pool = poolForIp(args.ip, enabledPools(await loadPools(ctx), addr.version));
  if (!pool)
    throw new IpamError(
      'InvalidArgument',
      'The provided IP address is not in a configured pool\n',
      { identifier: args.ip },
    );
  const uses = pool.spec.allowedUses ?? [];
  if (args.intendedUse && !uses.includes(args.intendedUse)) {
    throw new IpamError(
      'InvalidArgument',
      `IP address ${args.ip} is in IP pool "${pool.metadata.name}", which is not allowed for use "${args.intendedUse}" (allowedUses: [${uses.join(' ')}])`,
    );
  }
  return { pool, addr };
}

/**
 * Assigns one address inside an enabled pool, claiming its block for the host if the block does
 * not exist yet. `AlreadyExists` if it is taken (or cooling down), except that re-assigning it
 * to the same capped handle succeeds. Unlike Calico, a lost claim race is retried (the block then
 * exists and is used if affinity allows) and the handle is counted once however often the block
 * write is retried.
 */
export async function assignIp(ctx: IpamContext, args: AssignIpArgs): Promise<void> {
  const { pool, addr } = await poolToAssignFrom(ctx, args);
  const config = await loadConfig(ctx);
  const affinity = affinityFor(args.intendedUse ?? 'Workload', args.hostname);
  const blockCidr = blockCidrForIp(args.ip, pool);
  const cap = args.maxAllocToHandlePerIpVersion ?? 0;

  await withCasRetry(async () => {
    let loaded: LoadedBlock;
    try {
      loaded = await queryBlock(ctx, blockCidr, config.ipCooldownSeconds);
    } catch (e) {
      if (!isIpamError(e, 'DoesNotExist')) throw e;
      const pending = await getPendingAffinity(ctx, affinity, blockCidr);
      loaded = await claimAffineBlock(ctx, pending, {
        owner: affinity,
        cooldownSeconds: config.ipCooldownSeconds,
        ...(args.hostReservedAttr && { hostReserved: args.hostReservedAttr }),
      });
    }
    let next;
    try {
      next = assignInBlock(loaded.block, {
        ip: args.ip,
        affinity: affinityString(affinity.affinityType, affinity.host),
        affinityCheck: config.strictAffinity,
        ...(args.handleId !== undefined && { handleId: args.handleId }),
        ...(args.attrs !== undefined && { attrs: args.attrs }),
      });
    } catch (e) {
      if (isIpamError(e, 'AlreadyExists') && args.handleId !== undefined && cap > 0) {
        const attr = attributeOf(loaded.block, ipToOrdinal(blockGeometry(blockCidr), args.ip));
        if (attr?.releasedAt === undefined && handleOf(attr) === args.handleId) return;
      }
      throw e;
    }
    const counted = await countAndWriteBlock(ctx, {
      kv: loaded.kv,
      block: next,
      counted:
        args.handleId === undefined ? undefined : { handleId: args.handleId, blockCidr, count: 1 },
      maxAllocPerVersion: cap,
    });
    if (!counted.ok) {
      const existing = await existingAllocationsForCappedHandle(ctx, {
        handleId: args.handleId!,
        num: 1,
        version: addr.version,
        cooldownSeconds: config.ipCooldownSeconds,
      });
      if (!existing)
        throw new IpamError(
          'UpdateConflict',
          `handle ${args.handleId} is being allocated concurrently`,
        );
      if (existing.some((c) => c.split('/')[0] === args.ip)) return;
      throw new IpamError(
        'InvalidArgument',
        `handle ${args.handleId} already has IP(s) allocated, cannot assign additional IP ${args.ip} (maxAllocPerIPVersion=${cap})`,
      );
    }
  });
}
