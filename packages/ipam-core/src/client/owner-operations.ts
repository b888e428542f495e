import { parseIp } from '@netledger/accounting';
import { allocationAttributesForIp } from '../block/block-queries.js';
import type {
  AttributeOwner,
  OwnerAttributePreconditions,
  OwnerAttributeUpdates,
} from '../block/owner-attributes.js';
import {
  moveIpToHandleInBlock,
  setOwnerAttributesInBlock,
  validateOwnerUpdate,
} from '../block/owner-attributes.js';
import { withCasRetry } from '../cas-retry.js';
import { IpamError } from '../errors.js';
import type { AllocationAttribute } from '../model/block.js';
import { enabledPools } from '../pools/enabled-pools.js';
import { blockCidrForIp, poolForIp } from '../pools/pool-for-ip.js';
import { queryBlock, updateBlock } from './block-reader-writer.js';
import { writeCountedBlock } from './write-counted-block.js';
import { decrementHandle, incrementHandle } from './handles.js';
import type { IpamContext } from './ipam-context.js';
import { loadConfig, loadPools } from './ipam-reads.js';

async function blockOf(
  ctx: IpamContext,
  ip: string,
  enabledOnly: boolean,
): Promise<string | undefined> {
  let version;
  try {
    version = parseIp(ip).version;
  } catch {
    throw new IpamError('InvalidArgument', `invalid IP address: ${JSON.stringify(ip)}`);
  }
  const pools = await loadPools(ctx);
  const pool = poolForIp(ip, enabledOnly ? enabledPools(pools, version) : pools);
  return pool && blockCidrForIp(ip, pool);
}

/** The block of an address in any configured pool; `InvalidArgument` outside every pool. */
async function configuredBlockOf(ctx: IpamContext, ip: string): Promise<string> {
  const cidr = await blockOf(ctx, ip, false);
  if (!cidr) {
    throw new IpamError(
      'InvalidArgument',
      `the provided IP address ${ip} is not in a configured pool`,
    );
  }
  return cidr;
}

/** The owner of an allocated address; `DoesNotExist` if unassigned or outside every enabled pool, `IpInCooldown` while cooling. */
export async function getAssignmentAttributes(
  ctx: IpamContext,
  ip: string,
): Promise<AllocationAttribute> {
  const cidr = await blockOf(ctx, ip, true);
  if (!cidr) throw new IpamError('DoesNotExist', 'No valid IPPool', { identifier: ip });
  const config = await loadConfig(ctx);
  const { block } = await queryBlock(ctx, cidr, config.ipCooldownSeconds);
  return allocationAttributesForIp(block, ip);
}

/** Swaps owner attributes of one address under preconditions, in one block CAS (KubeVirt live migration). */
export async function setOwnerAttributes(
  ctx: IpamContext,
  args: {
    ip: string;
    handleId: string;
    updates: OwnerAttributeUpdates;
    preconditions?: OwnerAttributePreconditions;
  },
): Promise<void> {
  validateOwnerUpdate(args.updates, args.preconditions);
  const cidr = await configuredBlockOf(ctx, args.ip);
  const config = await loadConfig(ctx);
  await withCasRetry(async () => {
    const loaded = await queryBlock(ctx, cidr, config.ipCooldownSeconds);
    const next = setOwnerAttributesInBlock(loaded.block, args);
    if (next !== loaded.block) await updateBlock(ctx, loaded.kv, next);
  });
}

/**
 * Re-points an address from one handle to another in one block CAS; it is never unowned and
 * never cools down. The new handle is counted before the write and the old one after it.
 */
export async function moveIpToHandle(
  ctx: IpamContext,
  args: { ip: string; handleId: string; newHandleId: string; expectedOwner: AttributeOwner },
): Promise<void> {
  const cidr = await configuredBlockOf(ctx, args.ip);
  const config = await loadConfig(ctx);
  await withCasRetry(async () => {
    const loaded = await queryBlock(ctx, cidr, config.ipCooldownSeconds);
    const next = moveIpToHandleInBlock(loaded.block, args);
    const counted = { handleId: args.newHandleId, blockCidr: cidr, count: 1 };
    await incrementHandle(ctx, counted);
    await writeCountedBlock(ctx, { kv: loaded.kv, block: next, counted });
  });
  await decrementHandle(ctx, { handleId: args.handleId, blockCidr: cidr, count: 1 });
}
