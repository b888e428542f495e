import { cidrContainsIp, parseCidr, parseIp } from '@netledger/accounting';
import { sanitizeHandle } from '../block/block-attributes.js';
import { isBlockEmpty } from '../block/block-queries.js';
import type { ReleaseOptions } from '../block/block-release.js';
import { releaseFromBlock } from '../block/block-release.js';
import { withCasRetry } from '../cas-retry.js';
import { IpamError, isIpamError } from '../errors.js';
import { blockCidrForIp, poolForIp } from '../pools/pool-for-ip.js';
import { deleteBlock, queryBlock, updateBlock } from './block-reader-writer.js';
import { affinityNotEnsured, ensureConsistentAffinity } from './ensure-consistent-affinity.js';
import { decrementHandle, handleNotDecremented } from './handles.js';
import type { IpamContext } from './ipam-context.js';
import { reportFailure } from './ipam-report.js';
import { loadConfig, loadPools } from './ipam-reads.js';
import type { KeyedMutex } from './keyed-mutex.js';

/** The outcome of a release: addresses that were not allocated, and the options that were applied. */
export interface ReleaseResult {
  readonly unallocated: string[];
  readonly released: ReleaseOptions[];
}

/** How many blocks are released in parallel. */
const BLOCK_CONCURRENCY = 8;

async function groupByBlock(
  ctx: IpamContext,
  options: readonly ReleaseOptions[],
): Promise<{ byBlock: Map<string, ReleaseOptions[]>; outside: string[] }> {
  const pools = await loadPools(ctx); // disabled pools too: releasing from them must stay cheap
  const byBlock = new Map<string, ReleaseOptions[]>();
  const outside: string[] = [];
  const blockLists = new Map<4 | 6, string[]>();
  for (const opt of options) {
    const ip = parseIp(opt.address);
    const pool = poolForIp(opt.address, pools);
    let cidr = pool && blockCidrForIp(opt.address, pool);
    if (!cidr) {
      // Outside every pool (a deleted pool): find the block by listing blocks once per call.
      let list = blockLists.get(ip.version);
      if (!list) {
        list = (await ctx.ds.list({ kind: 'IPAMBlock', ipVersion: ip.version })).items.map(
          (kv) => kv.key.cidr,
        );
        blockLists.set(ip.version, list);
      }
      cidr = list.find((b) => cidrContainsIp(parseCidr(b), ip));
    }
    if (!cidr) {
      outside.push(opt.address);
      continue;
    }
    const batch = byBlock.get(cidr);
    if (batch) batch.push(opt);
    else byBlock.set(cidr, [opt]);
  }
  return { byBlock, outside };
}

/**
 * Releases addresses, batched per block and blocks in parallel; each block is one CAS write
 * (deleted when it ends up empty and unaffine). Addresses already free, in cooldown, or outside
 * every block come back in `unallocated`. A stale sequence number or handle rejects that block's
 * whole batch: the call then throws `BadSequenceNumber`/`BadHandle` with what the other blocks
 * did in `error.partial` ({ unallocated, released }).
 */
export async function releaseIps(
  ctx: IpamContext,
  options: readonly ReleaseOptions[],
  blockLocks: KeyedMutex,
): Promise<ReleaseResult> {
  for (const o of options) {
    if (!o.address) throw new IpamError('InvalidArgument', 'release options must name an address');
    try {
      parseIp(o.address);
    } catch {
      throw new IpamError('InvalidArgument', `invalid IP address: ${JSON.stringify(o.address)}`);
    }
  }
  const sanitized = options.map((o) =>
    o.handle === undefined ? o : { ...o, handle: sanitizeHandle(o.handle) },
  );
  const { byBlock, outside } = await groupByBlock(ctx, sanitized);
  const config = await loadConfig(ctx);
  const result: ReleaseResult = { unallocated: [...outside], released: [] };
  let firstError: Error | undefined;
  const queue = [...byBlock.entries()];
  const worker = async (): Promise<void> => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const [cidr, opts] = next;
      try {
        const unallocated = await blockLocks.run(cidr, () =>
          releaseFromOneBlock(ctx, { cidr, opts, cooldownSeconds: config.ipCooldownSeconds }),
        );
        result.unallocated.push(...unallocated);
        result.released.push(...opts);
      } catch (e) {
        firstError ??= e instanceof Error ? e : new Error(String(e));
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(BLOCK_CONCURRENCY, queue.length) }, worker));
  if (firstError instanceof IpamError) {
    throw new IpamError(firstError.code, firstError.message, {
      identifier: firstError.identifier ?? '',
      partial: result,
      cause: firstError,
    });
  }
  if (firstError !== undefined)
    throw firstError instanceof Error ? firstError : new Error(String(firstError));
  return result;
}

/** One block's share of a release: its CIDR and the addresses in it. */
interface BlockRelease {
  readonly cidr: string;
  readonly opts: readonly ReleaseOptions[];
  readonly cooldownSeconds: number;
}

async function releaseFromOneBlock(ctx: IpamContext, batch: BlockRelease): Promise<string[]> {
  const { cidr, opts, cooldownSeconds } = batch;
  const done = await withCasRetry(async () => {
    let loaded;
    try {
      loaded = await queryBlock(ctx, cidr, cooldownSeconds);
    } catch (e) {
      if (isIpamError(e, 'DoesNotExist'))
        return {
          unallocated: opts.map((o) => o.address),
          counts: new Map<string, number>(),
          block: undefined,
        };
      throw e;
    }
    const r = releaseFromBlock(loaded.block, opts, { nowMs: ctx.clock.now(), cooldownSeconds });
    if (r.released === 0)
      return { unallocated: r.unallocated, counts: r.countByHandle, block: undefined };
    if (isBlockEmpty(r.block) && r.block.affinity === undefined) await deleteBlock(ctx, loaded.kv);
    else await updateBlock(ctx, loaded.kv, r.block);
    return { unallocated: r.unallocated, counts: r.countByHandle, block: r.block };
  });
  // The addresses are released: what follows is best effort, reported but never failing the call.
  for (const [handleId, count] of done.counts) {
    await decrementHandle(ctx, { handleId, blockCidr: cidr, count }).catch((cause: unknown) =>
      reportFailure(ctx, handleNotDecremented({ handle: handleId, cidr, cause })),
    );
  }
  if (done.block) {
    await ensureConsistentAffinity(ctx, done.block, cooldownSeconds).catch((cause: unknown) =>
      reportFailure(ctx, affinityNotEnsured({ cidr, cause })),
    );
  }
  return done.unallocated;
}
