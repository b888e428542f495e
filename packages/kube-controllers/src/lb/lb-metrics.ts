import { cidrContainsCidr, parseCidr } from '@netledger/accounting';
import { blockAllocations } from '@netledger/ipam-core/block';
import type { Registry } from 'prom-client';
import type { LbState } from './lb-state.js';
import type { PoolFigures } from '../metrics/pool-figures.js';
import { computePoolFigures } from '../metrics/pool-figures.js';
import type { MetricTable } from '../metrics/register-metrics.js';
import { registerMetrics, resetMetrics } from '../metrics/register-metrics.js';

/** Where a managed Service stands: addressed, waiting (no pool, exhausted, not leader yet), refused, or invalid. */
export type LbServiceState = 'assigned' | 'pending' | 'refused' | 'invalid';

/** One LoadBalancer pool's gauges. */
export interface LbPoolMetrics extends PoolFigures {
  readonly name: string;
  /** Addresses allocated with a handle (cooling ones excluded). */
  readonly inUse: number;
  readonly blocks: number;
}

/**
 * The LoadBalancer pools' figures, recomputed from the controller's view: size, reserved,
 * available and free blocks by the IPAM GC's own {@link computePoolFigures}, plus addresses in use
 * and blocks. Pure; pools sorted by name.
 */
export function computeLbPoolMetrics(state: LbState): LbPoolMetrics[] {
  const pools = [...state.pools.values()].filter((p) => p.loadBalancer);
  const blocksOf = new Map<string, { cidr: string; inUse: number }[]>();
  for (const [cidr, block] of state.blocks) {
    const c = parseCidr(cidr, { strict: false });
    const pool = pools.find((p) => cidrContainsCidr(p.cidr, c));
    if (!pool) continue;
    let inUse = 0;
    for (const a of blockAllocations(block)) if (a.handle !== undefined && !a.coolingDown) inUse++;
    const list = blocksOf.get(pool.name) ?? [];
    list.push({ cidr, inUse });
    blocksOf.set(pool.name, list);
  }
  const figures = computePoolFigures({
    pools: pools.map((p) => p.pool),
    blocks: pools.flatMap((p) =>
      (blocksOf.get(p.name) ?? []).map((b) => state.blocks.get(b.cidr)!),
    ),
    reservations: [...state.reservations.values()],
    blocksInPool: (name) => blocksOf.get(name)?.length ?? 0,
  });
  return pools
    .map((p) => ({
      name: p.name,
      ...figures.get(p.name)!,
      inUse: (blocksOf.get(p.name) ?? []).reduce((n, b) => n + b.inUse, 0),
      blocks: blocksOf.get(p.name)?.length ?? 0,
    }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** What the LoadBalancer controller counts and shows. */
export interface LbMetrics {
  /** Sets every gauge from a fresh recompute (before each scrape). */
  update(pools: readonly LbPoolMetrics[], services: ReadonlyMap<LbServiceState, number>): void;
  assigned(family: string): void;
  released(reason: string): void;
  error(operation: string): void;
}

const POOL = ['ippool'] as const;

// Recomputed (reset, then set) at every update.
const POOL_GAUGES = {
  size: {
    kind: 'gauge',
    name: 'ipam_loadbalancer_ippool_size',
    help: 'Total number of addresses in the LoadBalancer IP pool.',
    labels: POOL,
  },
  reserved: {
    kind: 'gauge',
    name: 'ipam_loadbalancer_ippool_reserved',
    help: 'Addresses of the LoadBalancer IP pool that an IPReservation covers.',
    labels: POOL,
  },
  available: {
    kind: 'gauge',
    name: 'ipam_loadbalancer_ippool_available',
    help: 'Addresses of the LoadBalancer IP pool that can still be assigned: neither allocated (cooling-down addresses count as allocated) nor reserved.',
    labels: POOL,
  },
  freeBlocks: {
    kind: 'gauge',
    name: 'ipam_loadbalancer_ippool_free_blocks',
    help: 'Blocks of the LoadBalancer IP pool not claimed yet.',
    labels: POOL,
  },
  inUse: {
    kind: 'gauge',
    name: 'ipam_loadbalancer_allocations_in_use',
    help: 'Addresses of the LoadBalancer IP pool currently allocated (to Services).',
    labels: POOL,
  },
  blocks: {
    kind: 'gauge',
    name: 'ipam_loadbalancer_blocks',
    help: 'IPAM blocks of the LoadBalancer IP pool.',
    labels: POOL,
  },
} as const satisfies MetricTable;

const LB_METRICS = {
  services: {
    kind: 'gauge',
    name: 'ipam_loadbalancer_services',
    help: 'Managed LoadBalancer Services by state: assigned (every requested family has its address), pending, refused (sharing key clash), invalid (bad annotations).',
    labels: ['state'],
  },
  assignments: {
    kind: 'counter',
    name: 'ipam_loadbalancer_assignments_total',
    help: 'LoadBalancer addresses assigned, by IP family.',
    labels: ['family'],
  },
  releases: {
    kind: 'counter',
    name: 'ipam_loadbalancer_releases_total',
    help: 'LoadBalancer addresses released, by reason.',
    labels: ['reason'],
  },
  errors: {
    kind: 'counter',
    name: 'ipam_loadbalancer_errors_total',
    help: 'LoadBalancer controller writes that failed (each is retried with backoff), by operation.',
    labels: ['operation'],
  },
} as const satisfies MetricTable;

const SERVICE_STATES = ['assigned', 'pending', 'refused', 'invalid'] as const;

/**
 * Registers the LoadBalancer controller's metrics: per LoadBalancer pool (label `ippool`)
 * `ipam_loadbalancer_ippool_size`, `_reserved`, `_available`, `_free_blocks`,
 * `ipam_loadbalancer_allocations_in_use`, `ipam_loadbalancer_blocks` (the workload pools'
 * `ipam_ippool_*` figures, computed the same way); `ipam_loadbalancer_services{state}`; counters
 * `ipam_loadbalancer_assignments_total{family}`, `ipam_loadbalancer_releases_total{reason}`,
 * `ipam_loadbalancer_errors_total{operation}`. Gauges are reset at every update: a deleted pool
 * leaves no series.
 */
export function createLbMetrics(registry: Registry): LbMetrics {
  const gauges = registerMetrics(registry, POOL_GAUGES);
  const { services, assignments, releases, errors } = registerMetrics(registry, LB_METRICS);
  return {
    update(pools, counts) {
      resetMetrics(gauges);
      for (const p of pools) {
        const ippool = p.name;
        for (const key of Object.keys(POOL_GAUGES) as (keyof typeof POOL_GAUGES)[])
          gauges[key].set({ ippool }, p[key]);
      }
      for (const state of SERVICE_STATES) services.set({ state }, counts.get(state) ?? 0);
    },
    assigned: (family) => assignments.inc({ family }),
    released: (reason) => releases.inc({ reason }),
    error: (operation) => errors.inc({ operation }),
  };
}
