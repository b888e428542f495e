import type { AddressFilter } from '@netledger/accounting';
import { parseCidr } from '@netledger/accounting';
import { affinityString } from '../block/block-queries.js';
import type { HostReservedAttr } from '../block/new-block.js';
import { withCasRetry } from '../cas-retry.js';
import type { IpamConfig } from '../config/ipam-config.js';
import type { KVPair } from '../datastore/datastore.js';
import { effectiveMaxBlocks } from '../config/ipam-config.js';
import { IpamError, isIpamError } from '../errors.js';
import type { IPPool, IPPoolAllowedUse } from '../model/resources.js';
import type { AssignFromBlockArgs } from './assign-from-block.js';
import { assignFromExistingBlock } from './assign-from-block.js';
import type { AutoAssignArgs, IpamAssignments } from './assignments.js';
import type { LoadedBlock } from './block-reader-writer.js';
import { queryBlock } from './block-reader-writer.js';
import { orderByBlockWalk } from './block-walk.js';
import type { BlockAssignState } from './find-or-claim-block.js';
import { findOrClaimBlock } from './find-or-claim-block.js';
import type { AffinityConfig, IpamContext } from './ipam-context.js';
import { reportFailure } from './ipam-report.js';
import { existingAllocationsForCappedHandle } from './ips-by-handle.js';
import { prepareAffinityBlocksForHost } from './prepare-affinity-blocks.js';

/** Everything one IP version of an autoAssign needs. */
export interface VersionRequest {
  readonly version: 4 | 6;
  readonly num: number;
  readonly args: AutoAssignArgs;
  readonly requestedPools?: readonly string[];
  readonly hostReserved?: HostReservedAttr;
  readonly pools: readonly IPPool[];
  readonly reservations: AddressFilter;
  readonly config: IpamConfig;
  /** The host's affinities, already read with the other inputs (both versions). */
  readonly affinities?: readonly KVPair<'BlockAffinity'>[];
}

/** The affinity a request allocates under: the host's, or `virtual` for LoadBalancer addresses. */
export function affinityFor(use: IPPoolAllowedUse, host: string): AffinityConfig {
  return { affinityType: use === 'LoadBalancer' ? 'virtual' : 'host', host };
}

class Collected {
  readonly ips: string[] = [];
  private readonly msgSet = new Set<string>();
  constructor(private readonly req: VersionRequest) {}
  msg(m: string): void {
    this.msgSet.add(m);
  }
  result(): IpamAssignments {
    return {
      ips: this.ips,
      numRequested: this.req.num,
      msgs: [...this.msgSet],
      ipVersion: this.req.version,
      ...(this.req.hostReserved && { hostReservedAttr: this.req.hostReserved }),
    };
  }
}

/** What one block gave: addresses, and whether a capped handle got its existing ones back. */
interface Allocated {
  readonly ips: string[];
  readonly done: boolean;
}

/** A block to allocate from, and what to allocate in it. */
interface BlockJob {
  readonly loaded: LoadedBlock;
  readonly assign: AssignFromBlockArgs;
}

/** One allocation attempt on a loaded block. A capped handle (KubeVirt) gets its existing addresses back. */
async function allocateOnce(
  ctx: IpamContext,
  req: VersionRequest,
  { loaded, assign }: BlockJob,
): Promise<Allocated> {
  const r = await assignFromExistingBlock(ctx, loaded, assign);
  if (r.kind === 'assigned') return { ips: r.ips, done: false };
  const existing = await existingAllocationsForCappedHandle(ctx, {
    handleId: assign.handleId!,
    num: req.num,
    version: req.version,
    cooldownSeconds: req.config.ipCooldownSeconds,
  });
  if (!existing)
    throw new IpamError(
      'UpdateConflict',
      `handle ${assign.handleId} is being allocated concurrently`,
    );
  return { ips: existing, done: true };
}

/**
 * One retried allocation from one block. The first attempt uses the block as found; retries
 * re-read it.
 */
async function allocateFromBlock(
  ctx: IpamContext,
  req: VersionRequest,
  job: BlockJob,
): Promise<Allocated> {
  return withCasRetry(async (attempt) => {
    if (attempt === 0) return allocateOnce(ctx, req, job);
    const loaded = await queryBlock(ctx, job.loaded.block.cidr, req.config.ipCooldownSeconds);
    return allocateOnce(ctx, req, { loaded, assign: job.assign });
  });
}

/**
 * A block write whose outcome is unknown (`Unavailable`) ends the assignment with that error and
 * what was assigned before it in `partial`. Its handle stays counted (the write may have applied),
 * so trying the next block would leave the handle counting an address its blocks may not hold,
 * or hold one the caller was never told of; the caller's cleanup (a CNI runtime's DEL, a release
 * by handle) settles both.
 */
function endOnUnknownOutcome(e: IpamError, out: Collected): void {
  if (isIpamError(e, 'Unavailable'))
    throw new IpamError('Unavailable', e.message, { partial: out.result(), cause: e });
}

/** The host's affine blocks and the pools it may use, for `req` (`prepareAffinityBlocksForHost`). */
function prepareHost(ctx: IpamContext, req: VersionRequest, affinity: AffinityConfig) {
  const { args } = req;
  return prepareAffinityBlocksForHost(ctx, {
    affinity,
    version: req.version,
    use: args.intendedUse,
    ...(req.requestedPools && { requestedPools: req.requestedPools }),
    ...(args.namespace?.labels && { namespaceLabels: args.namespace.labels }),
    ...(req.hostReserved && { hostReserved: req.hostReserved }),
    pools: req.pools,
    config: req.config,
    ...(req.affinities && { affinities: req.affinities }),
  });
}

/** What one block is asked for: `num` addresses for `req`'s handle and attributes, as `affinity`. */
function assignArgs(
  req: VersionRequest,
  affinity: AffinityConfig,
  what: { readonly num: number; readonly affinityCheck: boolean },
): AssignFromBlockArgs {
  const { args } = req;
  return {
    num: what.num,
    affinity: affinityString(affinity.affinityType, affinity.host),
    affinityCheck: what.affinityCheck,
    reservations: req.reservations,
    ...(args.handleId !== undefined && { handleId: args.handleId }),
    ...(args.attrs !== undefined && { attrs: args.attrs }),
    ...(args.maxAllocToHandlePerIpVersion && {
      maxAllocPerVersion: args.maxAllocToHandlePerIpVersion,
    }),
  };
}

/**
 * Calico's per-version `autoAssign`: affine blocks first, then new claims (up to the block cap),
 * then, unless affinity is strict, borrowing from other hosts' blocks along the host's walk.
 * Returns what it got (a short result carries messages). Throws `BlockLimit` with the partial
 * result in `error.partial` when a claim was needed past the cap.
 */
export async function autoAssignVersion(
  ctx: IpamContext,
  req: VersionRequest,
): Promise<IpamAssignments> {
  const { args, config } = req;
  const affinity = affinityFor(args.intendedUse, args.hostname);
  const prepared = await prepareHost(ctx, req, affinity);
  const out = new Collected(req);
  const maxBlocks = effectiveMaxBlocks(args.maxBlocksPerHost, config.maxBlocksPerHost);
  let owned = prepared.affineBlocks.length;
  const state: BlockAssignState = {
    affinity,
    pools: prepared.pools,
    remainingAffineBlocks: [...prepared.affineBlocks],
    allowNewClaim: true,
    reservations: req.reservations,
    ...(req.hostReserved && { hostReserved: req.hostReserved }),
  };
  const assign = (num: number, affinityCheck: boolean): AssignFromBlockArgs =>
    assignArgs(req, affinity, { num, affinityCheck });

  while (out.ips.length < req.num) {
    if (owned >= maxBlocks) state.allowNewClaim = false;
    let found;
    try {
      found = await findOrClaimBlock(ctx, state, { config, minFree: 1 });
    } catch (e) {
      if (isIpamError(e, 'NoFreeBlocks')) {
        if (config.strictAffinity)
          out.msg('No more free affine blocks and strict affinity enabled');
        break;
      }
      if (isIpamError(e, 'BlockLimit')) {
        out.msg(
          `Need to allocate an IPAM block but could not - limit of ${maxBlocks} blocks reached for this node`,
        );
        throw new IpamError('BlockLimit', e.message, { partial: out.result() });
      }
      throw new IpamError(isIpamError(e) ? e.code : 'InvalidArgument', (e as Error).message, {
        partial: out.result(),
        cause: e,
      });
    }
    if (found.newlyClaimed) owned++;
    try {
      const job = {
        loaded: found,
        assign: assign(req.num - out.ips.length, config.strictAffinity),
      };
      const r = await allocateFromBlock(ctx, req, job);
      out.ips.push(...r.ips);
      if (r.done) return out.result();
    } catch (e) {
      if (!(e instanceof IpamError)) throw e;
      endOnUnknownOutcome(e, out);
      out.msg('Failed to assign IPs in newly allocated block');
      reportFailure(ctx, {
        level: 'warning',
        message: 'Failed to assign IPs in newly allocated block',
        operation: 'assignFromNewBlock',
        cidr: found.block.cidr,
        host: affinity.host,
        ...(args.handleId !== undefined && { handle: args.handleId }),
        cause: e,
      });
    }
  }

  if (!config.strictAffinity && out.ips.length < req.num) {
    await borrow(ctx, req, {
      affinity,
      pools: prepared.pools,
      assign: (n) => assign(n, false),
      out,
    });
  }
  return out.result();
}

/** Borrowing: fill from existing blocks of other hosts, in the host's walk order, pool by pool. */
async function borrow(
  ctx: IpamContext,
  req: VersionRequest,
  from: {
    readonly affinity: AffinityConfig;
    readonly pools: readonly IPPool[];
    readonly assign: (num: number) => AssignFromBlockArgs;
    readonly out: Collected;
  },
): Promise<void> {
  const { affinity, pools, assign, out } = from;
  const { items } = await ctx.ds.list({ kind: 'IPAMBlock', ipVersion: req.version });
  const existing = items.map((kv) => kv.key.cidr);
  const exhausted: string[] = [];
  for (const pool of pools) {
    if (out.ips.length >= req.num) break;
    const order = orderByBlockWalk(
      {
        poolCidr: pool.spec.cidr,
        blockSize: pool.spec.blockSize!,
        host: affinity.host,
        timeSeed: 0,
      },
      existing,
    );
    for (const cidr of order) {
      if (out.ips.length >= req.num) break;
      if (req.reservations.matchesWholeCidr(parseCidr(cidr))) continue;
      const facts = {
        cidr,
        host: affinity.host,
        ...(req.args.handleId !== undefined && { handle: req.args.handleId }),
      };
      let loaded: LoadedBlock;
      try {
        loaded = await queryBlock(ctx, cidr, req.config.ipCooldownSeconds);
      } catch (e) {
        reportFailure(ctx, {
          level: 'warning',
          message: 'Failed to get non-affine block',
          operation: 'readBorrowedBlock',
          ...facts,
          cause: e,
        });
        continue;
      }
      try {
        const r = await allocateFromBlock(ctx, req, {
          loaded,
          assign: assign(req.num - out.ips.length),
        });
        out.ips.push(...r.ips);
        if (r.done) return; // a capped handle got its existing addresses back
      } catch (e) {
        if (!(e instanceof IpamError)) throw e;
        endOnUnknownOutcome(e, out);
        reportFailure(ctx, {
          level: 'warning',
          message: `Failed to assign IPs from non-affine block in pool ${pool.spec.cidr}`,
          operation: 'assignFromBorrowedBlock',
          ...facts,
          cause: e,
        });
      }
    }
    if (out.ips.length < req.num) exhausted.push(pool.spec.cidr);
  }
  if (exhausted.length > 0) out.msg(`No IPs available in pools: [${exhausted.join(' ')}]`);
}
