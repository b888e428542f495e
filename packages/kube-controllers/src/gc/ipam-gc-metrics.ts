import type { Registry } from 'prom-client';
import type { GcOperation } from './pass/gc-pass-context.js';
import type { IpamMetricsSnapshot, PoolMetrics } from './ipam-metrics-model.js';
import { UNKNOWN_NODE } from './ipam-metrics-model.js';
import type { MetricTable, RegisteredMetrics } from '../metrics/register-metrics.js';
import { registerMetrics, resetMetrics } from '../metrics/register-metrics.js';

/** The GC's metrics in a registry: Calico's IPAM metrics plus the GC's own. */
export interface IpamGcMetrics {
  /** Sets every IPAM gauge from a fresh recompute (called before each scrape). */
  update(snapshot: IpamMetricsSnapshot): void;
  /** Counts a reclaimed leak (`ipam_allocations_gc_reclamations`). */
  reclaimed(pool: string, node: string | undefined): void;
  /** Drops a cleaned-up node's reclamation series (Calico's `clearReclaimedIPCountForNode`). */
  forgetNode(node: string): void;
  /** Records a pass: its duration and outcome. */
  pass(seconds: number, outcome: 'ok' | 'error'): void;
  error(operation: GcOperation): void;
  setLeader(leading: boolean): void;
}

const POOL_NODE = ['ippool', 'node'] as const;
const POOL = ['ippool'] as const;
const NODE = ['node'] as const;

// Calico's names and help strings, word for word, so dashboards and alerts built on Calico read
// the same. Every gauge here is recomputed (reset, then set) at each update.
const IPAM_GAUGES = {
  inUse: {
    kind: 'gauge',
    name: 'ipam_allocations_in_use',
    help: 'IPs currently allocated in IPAM to a workload or tunnel endpoint.',
    labels: POOL_NODE,
  },
  borrowed: {
    kind: 'gauge',
    name: 'ipam_allocations_borrowed',
    help: 'IPs currently allocated in IPAM to a workload or tunnel endpoint, where the allocation was borrowed from a block affine to another node.',
    labels: POOL_NODE,
  },
  blocks: {
    kind: 'gauge',
    name: 'ipam_blocks',
    help: 'IPAM blocks currently allocated for the IP pool.',
    labels: POOL_NODE,
  },
  candidates: {
    kind: 'gauge',
    name: 'ipam_allocations_gc_candidates',
    help: 'Allocations that are currently marked by the garbage collector as potential candidates to reclaim. Under normal operation, this metric should return to zero after the garbage collector confirms that this allocation can be reclaimed and reclaims it, or the allocation is confirmed as valid.',
    labels: POOL_NODE,
  },
  size: {
    kind: 'gauge',
    name: 'ipam_ippool_size',
    help: 'Total number of addresses in the IP Pool',
    labels: POOL,
  },
  reserved: {
    kind: 'gauge',
    name: 'ipam_ippool_reserved',
    help: 'Number of addresses in the IP Pool that an IPReservation covers, and so cannot be assigned.',
    labels: POOL,
  },
  available: {
    kind: 'gauge',
    name: 'ipam_ippool_available',
    help: 'Addresses of the IP pool that can still be assigned: neither allocated (cooling-down addresses count as allocated) nor reserved.',
    labels: POOL,
  },
  freeBlocks: {
    kind: 'gauge',
    name: 'ipam_ippool_free_blocks',
    help: 'Blocks of the IP pool that no node has claimed yet.',
    labels: POOL,
  },
  allocationsPerNode: {
    kind: 'gauge',
    name: 'ipam_allocations_per_node',
    help: 'Number of IPs allocated',
    labels: NODE,
  },
  borrowedPerNode: {
    kind: 'gauge',
    name: 'ipam_allocations_borrowed_per_node',
    help: 'Number of allocated IPs that are from non-affine blocks.',
    labels: NODE,
  },
  blocksPerNode: {
    kind: 'gauge',
    name: 'ipam_blocks_per_node',
    help: 'Number of blocks in IPAM',
    labels: NODE,
  },
} as const satisfies MetricTable;

const GC_METRICS = {
  reclamations: {
    kind: 'counter',
    name: 'ipam_allocations_gc_reclamations',
    help: 'The total allocations that have been reclaimed by the garbage collector over time. Under normal operation, this counter should increase, and increases of this counter should align to a return to zero for the candidate gauge.',
    labels: POOL_NODE,
  },
  duration: {
    kind: 'histogram',
    name: 'ipam_gc_pass_duration_seconds',
    help: 'How long an IPAM GC pass took (judging, releasing, block and node cleanup).',
    labels: ['outcome'],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
  },
  passes: {
    kind: 'counter',
    name: 'ipam_gc_passes_total',
    help: 'IPAM GC passes run.',
    labels: ['outcome'],
  },
  errors: {
    kind: 'counter',
    name: 'ipam_gc_errors_total',
    help: 'IPAM GC writes that failed (each is retried with backoff), by operation.',
    labels: ['operation'],
  },
  leader: {
    kind: 'gauge',
    name: 'ipam_gc_leader',
    help: '1 when this replica leads (and so may release), else 0.',
  },
} as const satisfies MetricTable;

type IpamGauges = RegisteredMetrics<typeof IPAM_GAUGES>;

/**
 * Registers the GC's metrics in `registry`. Per pool and node (labels `ippool`, `node`):
 * `ipam_allocations_in_use`, `ipam_allocations_borrowed`, `ipam_allocations_gc_candidates`,
 * `ipam_blocks`, the counter `ipam_allocations_gc_reclamations`; per pool `ipam_ippool_size`,
 * `ipam_ippool_reserved` and (netledger's) `ipam_ippool_available` and `ipam_ippool_free_blocks`;
 * the legacy per-node `ipam_allocations_per_node`, `ipam_allocations_borrowed_per_node`,
 * `ipam_blocks_per_node`; and `ipam_gc_pass_duration_seconds`, `ipam_gc_passes_total`,
 * `ipam_gc_errors_total{operation}`, `ipam_gc_leader`. Gauges are reset at every update, so a
 * deleted pool or node leaves no stale series.
 */
export function createIpamGcMetrics(registry: Registry): IpamGcMetrics {
  const gauges = registerMetrics(registry, IPAM_GAUGES);
  const { reclamations, duration, passes, errors, leader } = registerMetrics(registry, GC_METRICS);
  leader.set(0);
  const reclaimedCounts = new Map<string, Map<string, number>>();
  return {
    update(snapshot) {
      setIpamGauges(gauges, snapshot);
      // A deleted pool's reclamation series go with it.
      const pools = new Set(snapshot.pools.map((p) => p.name));
      for (const pool of [...reclaimedCounts.keys()])
        if (!pools.has(pool)) reclaimedCounts.delete(pool);
      reclamations.reset();
      for (const [pool, nodes] of reclaimedCounts) {
        for (const [node, n] of nodes) reclamations.inc({ ippool: pool, node }, n);
      }
    },
    reclaimed(pool, node) {
      let nodes = reclaimedCounts.get(pool);
      if (!nodes) reclaimedCounts.set(pool, (nodes = new Map<string, number>()));
      const label = node ?? UNKNOWN_NODE;
      nodes.set(label, (nodes.get(label) ?? 0) + 1);
      reclamations.inc({ ippool: pool, node: label });
    },
    forgetNode(node) {
      for (const nodes of reclaimedCounts.values()) nodes.delete(node);
    },
    pass(seconds, outcome) {
      duration.observe({ outcome }, seconds);
      passes.inc({ outcome });
    },
    error: (operation) => errors.inc({ operation }),
    setLeader: (leading) => leader.set(leading ? 1 : 0),
  };
}

/** Resets the IPAM gauges and sets them from `snapshot`. */
function setIpamGauges(g: IpamGauges, snapshot: IpamMetricsSnapshot): void {
  resetMetrics(g);
  for (const p of snapshot.pools) {
    const ippool = p.name;
    for (const [node, v] of p.inUse) g.inUse.set({ ippool, node }, v);
    for (const [node, v] of p.borrowed) g.borrowed.set({ ippool, node }, v);
    for (const [node, v] of p.blocks) g.blocks.set({ ippool, node }, v);
    for (const [node, v] of p.gcCandidates) g.candidates.set({ ippool, node }, v);
    setPoolFigures(g, p);
  }
  for (const [node, v] of snapshot.allocationsPerNode) g.allocationsPerNode.set({ node }, v);
  for (const [node, v] of snapshot.borrowedPerNode) g.borrowedPerNode.set({ node }, v);
  for (const [node, v] of snapshot.blocksPerNode) g.blocksPerNode.set({ node }, v);
}

function setPoolFigures(g: IpamGauges, p: PoolMetrics): void {
  const ippool = p.name;
  if (p.size !== undefined) g.size.set({ ippool }, p.size);
  if (p.reserved !== undefined) g.reserved.set({ ippool }, p.reserved);
  if (p.available !== undefined) g.available.set({ ippool }, p.available);
  if (p.freeBlocks !== undefined) g.freeBlocks.set({ ippool }, p.freeBlocks);
}
