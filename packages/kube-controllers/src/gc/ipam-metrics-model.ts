import type { GcState } from './gc-state.js';
import { NO_POOL } from './gc-state.js';
import { computePoolFigures } from '../metrics/pool-figures.js';

/** Calico's label for allocations without a `node` attribute. */
export const UNKNOWN_NODE = 'unknown_node';
/** Calico's label for blocks without a `host:` affinity. */
const NO_AFFINITY = 'no_affinity';

/** Per-node values of one pool's gauges. */
interface PoolNodeValues {
  readonly inUse: ReadonlyMap<string, number>;
  readonly borrowed: ReadonlyMap<string, number>;
  readonly blocks: ReadonlyMap<string, number>;
  readonly gcCandidates: ReadonlyMap<string, number>;
}

/** One pool's figures (absent for {@link NO_POOL}: `size`, `reserved`, `available`, `freeBlocks`). */
export interface PoolMetrics extends PoolNodeValues {
  readonly name: string;
  readonly size?: number;
  readonly reserved?: number;
  /** Addresses neither allocated (cooling ones count as allocated) nor reserved. */
  readonly available?: number;
  /** Blocks of the pool not claimed yet. */
  readonly freeBlocks?: number;
}

/** Every IPAM gauge's value, recomputed from the state. */
export interface IpamMetricsSnapshot {
  readonly pools: readonly PoolMetrics[];
  /** The legacy per-node gauges (summed over pools). */
  readonly allocationsPerNode: ReadonlyMap<string, number>;
  readonly borrowedPerNode: ReadonlyMap<string, number>;
  readonly blocksPerNode: ReadonlyMap<string, number>;
}

const bump = (m: Map<string, number>, k: string, by = 1): void =>
  void m.set(k, (m.get(k) ?? 0) + by);

/**
 * Recomputes every IPAM gauge from scratch (Calico's `updateMetrics`: one walk over every block's
 * allocations; the full recompute is the consistency check, so nothing here is incremental).
 * Known pools' `in_use`, `borrowed` and `gc_candidates` are zero-seeded for every node in
 * `seedNodes`, so ratios read 0 rather than no data; deleted pools and nodes simply are not in
 * the result, so no stale series survive a scrape. Size, `available`, `reserved` and free blocks
 * come from {@link computePoolFigures} (ipam-core's utilization arithmetic, as `ipam show`). Pure.
 */
export function computeIpamMetrics(
  state: GcState,
  options: { readonly seedNodes?: Iterable<string> } = {},
): IpamMetricsSnapshot {
  const seeds = [...new Set(options.seedNodes ?? state.calicoNodes.keys())];
  const perPool = new Map<
    string,
    {
      inUse: Map<string, number>;
      borrowed: Map<string, number>;
      blocks: Map<string, number>;
      gcCandidates: Map<string, number>;
    }
  >();
  const values = (pool: string) => {
    let v = perPool.get(pool);
    if (!v) {
      const seeded = (): Map<string, number> =>
        new Map(pool === NO_POOL ? [] : seeds.map((n) => [n, 0]));
      v = { inUse: seeded(), borrowed: seeded(), blocks: new Map(), gcCandidates: seeded() };
      perPool.set(pool, v);
    }
    return v;
  };
  for (const name of state.pools.keys()) values(name);
  const allocationsPerNode = new Map<string, number>();
  const borrowedPerNode = new Map<string, number>();
  const blocksPerNode = new Map<string, number>();
  for (const [cidr, info] of state.blocks) {
    const v = values(info.pool);
    const blockNode = info.affinityHost ?? NO_AFFINITY;
    bump(v.blocks, blockNode);
    bump(blocksPerNode, blockNode);
    for (const t of state.allocationsByBlock.get(cidr)?.values() ?? []) {
      const node = t.node ?? UNKNOWN_NODE;
      bump(v.inUse, node);
      if (t.node !== undefined) {
        bump(allocationsPerNode, t.node);
        if (t.node !== info.affinityHost) {
          bump(v.borrowed, node);
          bump(borrowedPerNode, node);
        }
      }
      if (t.leakedAtMs !== null || t.confirmedLeak) bump(v.gcCandidates, node);
    }
  }
  const figures = computePoolFigures({
    pools: [...state.pools.values()].map((p) => p.pool),
    blocks: [...state.blocks.values()].map((b) => b.block),
    reservations: [...state.reservations.values()],
    blocksInPool: (name) => state.blocksByPool.get(name)?.size ?? 0,
  });
  const pools: PoolMetrics[] = [...perPool]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, v]) => {
      const f = figures.get(name);
      return f ? { name, ...v, ...f } : { name, ...v };
    });
  return { pools, allocationsPerNode, borrowedPerNode, blocksPerNode };
}
