import { cidrContainsCidr, parseCidr } from '@netledger/accounting';
import { blockAllocations } from '@netledger/ipam-core/block';
import { Counter, Gauge } from 'prom-client';
import type { Registry } from 'prom-client';
import type { LbState } from './lb-state.js';
import type { PoolFigures } from '../metrics/pool-figures.js';
import { computePoolFigures } from '../metrics/pool-figures.js';

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
  const registers = [registry];
  const perPool = (name: string, help: string) =>
    new Gauge({ name, help, labelNames: ['ippool'] as const, registers });
  const size = perPool(
    'ipam_loadbalancer_ippool_size',
    'Total number of addresses in the LoadBalancer IP pool.',
  );
  const reserved = perPool(
    'ipam_loadbalancer_ippool_reserved',
    'Addresses of the LoadBalancer IP pool that an IPReservation covers.',
  );
  const available = perPool(
    'ipam_loadbalancer_ippool_available',
    'Addresses of the LoadBalancer IP pool that can still be assigned: neither allocated (cooling-down addresses count as allocated) nor reserved.',
  );
  const freeBlocks = perPool(
    'ipam_loadbalancer_ippool_free_blocks',
    'Blocks of the LoadBalancer IP pool not claimed yet.',
  );
  const inUse = perPool(
    'ipam_loadbalancer_allocations_in_use',
    'Addresses of the LoadBalancer IP pool currently allocated (to Services).',
  );
  const blocks = perPool('ipam_loadbalancer_blocks', 'IPAM blocks of the LoadBalancer IP pool.');
  const services = new Gauge({
    name: 'ipam_loadbalancer_services',
    help: 'Managed LoadBalancer Services by state: assigned (every requested family has its address), pending, refused (sharing key clash), invalid (bad annotations).',
    labelNames: ['state'] as const,
    registers,
  });
  const assignments = new Counter({
    name: 'ipam_loadbalancer_assignments_total',
    help: 'LoadBalancer addresses assigned, by IP family.',
    labelNames: ['family'] as const,
    registers,
  });
  const releases = new Counter({
    name: 'ipam_loadbalancer_releases_total',
    help: 'LoadBalancer addresses released, by reason.',
    labelNames: ['reason'] as const,
    registers,
  });
  const errors = new Counter({
    name: 'ipam_loadbalancer_errors_total',
    help: 'LoadBalancer controller writes that failed (each is retried with backoff), by operation.',
    labelNames: ['operation'] as const,
    registers,
  });
  return {
    update(pools, counts) {
      for (const g of [size, reserved, available, freeBlocks, inUse, blocks]) g.reset();
      for (const p of pools) {
        const ippool = p.name;
        size.set({ ippool }, p.size);
        reserved.set({ ippool }, p.reserved);
        available.set({ ippool }, p.available);
        freeBlocks.set({ ippool }, p.freeBlocks);
        inUse.set({ ippool }, p.inUse);
        blocks.set({ ippool }, p.blocks);
      }
      for (const state of ['assigned', 'pending', 'refused', 'invalid'] as const)
        services.set({ state }, counts.get(state) ?? 0);
    },
    assigned: (family) => assignments.inc({ family }),
    released: (reason) => releases.inc({ reason }),
    error: (operation) => errors.inc({ operation }),
  };
}
