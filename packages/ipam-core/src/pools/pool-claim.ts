import type { IPPool, IPPoolAllowedUse } from '../model/resources.js';
import { enabledPools } from './enabled-pools.js';
import { blockSizeOf, poolCidrOf } from './pool-cidr.js';
import type { HostReservedRange, QualifyingNode } from './pool-qualification.js';
import { filterPoolsByUse, maxPrefixLength, selectsAutomatically } from './pool-qualification.js';

/** A question to {@link PoolClaim.mayUse}. */
export interface MayUseQuery {
  /** The pool, by name or as an object (matched by name). */
  readonly pool: string | IPPool;
  readonly node: QualifyingNode;
  readonly use: IPPoolAllowedUse;
  readonly namespaceLabels?: Readonly<Record<string, string>>;
  /** Host-reserved addresses of the request, which may rule out small blocks. */
  readonly hostReserved?: HostReservedRange;
}

/** Pool qualification over a fixed pool list, for code outside the allocator. */
export interface PoolClaim {
  /** The enabled pools of a version (see `enabledPools`), computed once per version. */
  enabled(version: 4 | 6): readonly IPPool[];
  /**
   * Whether an automatic (unrequested) assignment for the node, namespace and use may draw from
   * the pool: exactly when `determinePools` without requested pools, then `filterPoolsByUse`,
   * would keep it. Unknown pools give false; an invalid selector throws `InvalidArgument`.
   */
  mayUse(query: MayUseQuery): boolean;
}

/**
 * Calico's `PoolClaim`: the one answer to "may this node use this pool", shared with the
 * allocator's qualification so that reports (e.g. nodes at their block cap) cannot disagree.
 */
export function createPoolClaim(pools: readonly IPPool[]): PoolClaim {
  const enabledByVersion = new Map<4 | 6, readonly IPPool[]>();
  const enabled = (version: 4 | 6): readonly IPPool[] => {
    let list = enabledByVersion.get(version);
    if (!list) {
      list = enabledPools(pools, version);
      enabledByVersion.set(version, list);
    }
    return list;
  };
  return {
    enabled,
    mayUse(query) {
      const name = typeof query.pool === 'string' ? query.pool : query.pool.metadata.name;
      const known = pools.find((p) => p.metadata.name === name);
      const cidr = known && poolCidrOf(known);
      if (!cidr) return false;
      const pool = enabled(cidr.version).find((p) => p.metadata.name === name);
      return (
        pool !== undefined &&
        blockSizeOf(pool, cidr.version) <= maxPrefixLength(cidr.version, query.hostReserved) &&
        selectsAutomatically(pool, query.node, query.namespaceLabels) &&
        filterPoolsByUse([pool], query.use).length === 1
      );
    },
  };
}

/** One-off form of {@link PoolClaim.mayUse} over `pools`. */
export function poolMayUse(query: MayUseQuery & { readonly pools: readonly IPPool[] }): boolean {
  return createPoolClaim(query.pools).mayUse(query);
}
