import { Counter, Gauge, Histogram } from 'prom-client';
import type { Registry } from 'prom-client';
import type { GcOperation } from './pass/gc-pass-context.js';
import type { IpamMetricsSnapshot, PoolMetrics, PoolNodeValues } from './ipam-metrics-model.js';
import { UNKNOWN_NODE } from './ipam-metrics-model.js';

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

// Calico's help strings, word for word, so dashboards and alerts built on Calico read the same.
const HELP = {
  inUse: 'IPs currently allocated in IPAM to a workload or tunnel endpoint.',
  borrowed:
    'IPs currently allocated in IPAM to a workload or tunnel endpoint, where the allocation was borrowed from a block affine to another node.',
  blocks: 'IPAM blocks currently allocated for the IP pool.',
  candidates:
    'Allocations that are currently marked by the garbage collector as potential candidates to reclaim. Under normal operation, this metric should return to zero after the garbage collector confirms that this allocation can be reclaimed and reclaims it, or the allocation is confirmed as valid.',
  reclamations:
    'The total allocations that have been reclaimed by the garbage collector over time. Under normal operation, this counter should increase, and increases of this counter should align to a return to zero for the candidate gauge.',
  size: 'Total number of addresses in the IP Pool',
  reserved:
    'Number of addresses in the IP Pool that an IPReservation covers, and so cannot be assigned.',
  perNode: 'Number of IPs allocated',
  borrowedPerNode: 'Number of allocated IPs that are from non-affine blocks.',
  blocksPerNode: 'Number of blocks in IPAM',
} as const;

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
  const registers = [registry];
  const poolNode = (name: string, help: string) =>
    new Gauge({ name, help, labelNames: ['ippool', 'node'] as const, registers });
  const inUse = poolNode('ipam_allocations_in_use', HELP.inUse);
  const borrowed = poolNode('ipam_allocations_borrowed', HELP.borrowed);
  const blocks = poolNode('ipam_blocks', HELP.blocks);
  const candidates = poolNode('ipam_allocations_gc_candidates', HELP.candidates);
  const reclamations = new Counter({
    name: 'ipam_allocations_gc_reclamations',
    help: HELP.reclamations,
    labelNames: ['ippool', 'node'] as const,
    registers,
  });
  const perPool = (name: string, help: string) =>
    new Gauge({ name, help, labelNames: ['ippool'] as const, registers });
  const size = perPool('ipam_ippool_size', HELP.size);
  const reserved = perPool('ipam_ippool_reserved', HELP.reserved);
  const available = perPool(
    'ipam_ippool_available',
    'Addresses of the IP pool that can still be assigned: neither allocated (cooling-down addresses count as allocated) nor reserved.',
  );
  const freeBlocks = perPool(
    'ipam_ippool_free_blocks',
    'Blocks of the IP pool that no node has claimed yet.',
  );
  const perNode = (name: string, help: string) =>
    new Gauge({ name, help, labelNames: ['node'] as const, registers });
  const allocationsPerNode = perNode('ipam_allocations_per_node', HELP.perNode);
  const borrowedPerNode = perNode('ipam_allocations_borrowed_per_node', HELP.borrowedPerNode);
  const blocksPerNode = perNode('ipam_blocks_per_node', HELP.blocksPerNode);
  const duration = new Histogram({
    name: 'ipam_gc_pass_duration_seconds',
    help: 'How long an IPAM GC pass took (judging, releasing, block and node cleanup).',
    labelNames: ['outcome'] as const,
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
    registers,
  });
  const passes = new Counter({
    name: 'ipam_gc_passes_total',
    help: 'IPAM GC passes run.',
    labelNames: ['outcome'] as const,
    registers,
  });
  const errors = new Counter({
    name: 'ipam_gc_errors_total',
    help: 'IPAM GC writes that failed (each is retried with backoff), by operation.',
    labelNames: ['operation'] as const,
    registers,
  });
  const leader = new Gauge({
    name: 'ipam_gc_leader',
    help: '1 when this replica leads (and so may release), else 0.',
    registers,
  });
  leader.set(0);
  const reclaimedCounts = new Map<string, Map<string, number>>();

  const setNodes = (
    gauge: Gauge<'ippool' | 'node'>,
    pool: string,
    values: ReadonlyMap<string, number>,
  ): void => {
    for (const [node, v] of values) gauge.set({ ippool: pool, node }, v);
  };
  return {
    update(snapshot) {
      for (const g of [
        inUse,
        borrowed,
        blocks,
        candidates,
        size,
        reserved,
        available,
        freeBlocks,
        allocationsPerNode,
        borrowedPerNode,
        blocksPerNode,
      ]) {
        g.reset();
      }
      const pools = new Set<string>();
      for (const p of snapshot.pools) {
        pools.add(p.name);
        const v: PoolNodeValues = p;
        setNodes(inUse, p.name, v.inUse);
        setNodes(borrowed, p.name, v.borrowed);
        setNodes(blocks, p.name, v.blocks);
        setNodes(candidates, p.name, v.gcCandidates);
        setPoolValues(p);
      }
      for (const [node, v] of snapshot.allocationsPerNode) allocationsPerNode.set({ node }, v);
      for (const [node, v] of snapshot.borrowedPerNode) borrowedPerNode.set({ node }, v);
      for (const [node, v] of snapshot.blocksPerNode) blocksPerNode.set({ node }, v);
      // A deleted pool's reclamation series go with it.
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

  function setPoolValues(p: PoolMetrics): void {
    if (p.size !== undefined) size.set({ ippool: p.name }, p.size);
    if (p.reserved !== undefined) reserved.set({ ippool: p.name }, p.reserved);
    if (p.available !== undefined) available.set({ ippool: p.name }, p.available);
    if (p.freeBlocks !== undefined) freeBlocks.set({ ippool: p.name }, p.freeBlocks);
  }
}
