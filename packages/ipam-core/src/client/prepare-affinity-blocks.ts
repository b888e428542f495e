import { cidrContainsCidr, parseCidr } from '@netledger/accounting';
import { withCasRetry } from '../cas-retry.js';
import type { IpamConfig } from '../config/ipam-config.js';
import type { KVPair } from '../datastore/datastore.js';
import { ipVersionOf } from '../model/keys.js';
import { IpamError, isIpamError } from '../errors.js';
import type { IPPool, IPPoolAllowedUse } from '../model/resources.js';
import { poolCidrOf } from '../pools/pool-cidr.js';
import type { HostReservedRange } from '../pools/pool-qualification.js';
import {
  determinePools,
  filterPoolsByUse,
  maxPrefixLength,
  selectsNode,
} from '../pools/pool-qualification.js';
import { releaseBlockAffinity } from './block-reader-writer.js';
import type { AffinityConfig, IpamContext } from './ipam-context.js';

/** Arguments of {@link prepareAffinityBlocksForHost}. */
export interface PrepareArgs {
  readonly affinity: AffinityConfig;
  readonly version: 4 | 6;
  readonly use: IPPoolAllowedUse;
  readonly requestedPools?: readonly string[];
  readonly namespaceLabels?: Readonly<Record<string, string>>;
  readonly hostReserved?: HostReservedRange;
  readonly pools: readonly IPPool[];
  readonly config: IpamConfig;
  /** The host's affinities if already read (any version; filtered here); else they are listed. */
  readonly affinities?: readonly KVPair<'BlockAffinity'>[];
}

/** The pools a request may draw from, and the host's affine blocks inside them (store order). */
export interface PreparedHost {
  readonly pools: IPPool[];
  /** The affinities as listed, so the first look at each needs no second read. */
  readonly affineBlocks: KVPair<'BlockAffinity'>[];
}

const inAny = (cidr: string, pools: readonly IPPool[]): boolean => {
  const c = parseCidr(cidr);
  return pools.some((p) => {
    const pc = poolCidrOf(p);
    return pc !== undefined && cidrContainsCidr(pc, c);
  });
};

/**
 * Resolves the node (it must exist, except for LoadBalancer requests), asks pool qualification
 * which pools the request may use, and lists the host's affinities. Empty affine blocks in pools
 * that no longer select the node are released on the way; a block whose pool is only ruled out
 * by use is kept (use is a per-request filter).
 */
export async function prepareAffinityBlocksForHost(
  ctx: IpamContext,
  args: PrepareArgs,
): Promise<PreparedHost> {
  const host = args.affinity.host;
  // Independent reads, started together; the affinities are only looked at once the node checks out.
  const listing = args.affinities
    ? Promise.resolve({
        items: args.affinities.filter((kv) => ipVersionOf(kv.key.cidr) === args.version),
      })
    : ctx.ds.list({
        kind: 'BlockAffinity',
        host,
        affinityType: args.affinity.affinityType,
        ipVersion: args.version,
      });
  // Not a dropped failure: the listing is awaited below, where its error is thrown; this only
  // keeps it from being an unhandled rejection when the node check throws first.
  listing.catch(() => undefined);
  let labels: Readonly<Record<string, string>> = {};
  if (args.use !== 'LoadBalancer') {
    try {
      labels = (await ctx.ds.get({ kind: 'Node', name: host })).value.metadata.labels ?? {};
    } catch (e) {
      if (isIpamError(e, 'DoesNotExist')) {
        throw new IpamError(
          'DoesNotExist',
          `node ${host} does not exist: register it before assigning addresses`,
          {
            identifier: host,
            cause: e,
          },
        );
      }
      throw e;
    }
  }
  const maxPrefixLen = maxPrefixLength(args.version, args.hostReserved);
  const { selected, enabled } = determinePools({
    ...(args.requestedPools && { requested: args.requestedPools }),
    version: args.version,
    node: { name: host, labels },
    ...(args.namespaceLabels && { namespaceLabels: args.namespaceLabels }),
    maxPrefixLen,
    pools: args.pools,
  });
  if (selected.length === 0)
    throw new IpamError('NoQualifiedPool', `no configured Calico pools for node ${host}`);
  const allowed = filterPoolsByUse(selected, args.use);
  if (allowed.length === 0) {
    throw new IpamError(
      'NoQualifiedPool',
      `cannot find a qualified ippool, no pools match the required use (${args.use})`,
    );
  }
  const { items } = await listing;
  const affineBlocks: KVPair<'BlockAffinity'>[] = [];
  for (const kv of items) {
    const cidr = kv.key.cidr;
    if (inAny(cidr, allowed)) {
      affineBlocks.push(kv);
      continue;
    }
    if (inAny(cidr, selected)) continue;
    const pool = enabled.find((p) => inAny(cidr, [p]));
    if (!pool || selectsNode(pool, labels)) continue;
    await withCasRetry(async () => {
      try {
        await releaseBlockAffinity(ctx, args.affinity, {
          cidr,
          requireEmpty: true,
          cooldownSeconds: args.config.ipCooldownSeconds,
        });
      } catch (e) {
        if (!isIpamError(e, 'BlockClaimConflict', 'BlockNotEmpty', 'DoesNotExist')) throw e;
      }
    });
  }
  return { pools: allowed, affineBlocks };
}
