import type { GcState } from './gc-state.js';

/**
 * Every disagreement between the GC state's maps (empty when they agree): Calico's
 * `assertConsistentState`, over every map. Each allocation is in its block's, node's and handle's
 * maps and nowhere else; confirmed leaks are tracked and confirmed; node, empty-block, cold-block,
 * empty-timer and pool maps name existing blocks with matching facts, and hold no empty entry.
 */
export function findStateProblems(state: GcState): string[] {
  const problems: string[] = [];
  const p = (m: string): void => void problems.push(m);
  allocationProblems(state, p);
  blockProblems(state, p);
  return problems;
}

/** Disagreements about allocations: their own maps, the allocation indexes, confirmed leaks. */
function allocationProblems(state: GcState, p: (problem: string) => void): void {
  for (const [id, t] of state.allocations) {
    if (t.id !== id) p(`allocation ${id} is stored as ${t.id}`);
    if (!state.blocks.has(t.blockCidr)) p(`allocation ${id} is in unknown block ${t.blockCidr}`);
    if (state.allocationsByBlock.get(t.blockCidr)?.get(id) !== t)
      p(`allocation ${id} missing from its block`);
    if (t.node !== undefined && state.allocationsByNode.get(t.node)?.get(id) !== t) {
      p(`allocation ${id} missing from node ${t.node}`);
    }
    if (state.allocationsByHandle.get(t.handle)?.get(id) !== t)
      p(`allocation ${id} missing from handle ${t.handle}`);
    if (t.confirmedLeak !== state.confirmedLeaks.has(id)) {
      p(
        `allocation ${id}: confirmedLeak ${t.confirmedLeak} but ${state.confirmedLeaks.has(id) ? '' : 'not '}in confirmedLeaks`,
      );
    }
  }
  const index = (
    name: string,
    map: ReadonlyMap<string, ReadonlyMap<string, { id: string }>>,
    matches: (key: string, t: { id: string }) => boolean,
  ): void => {
    for (const [key, inner] of map) {
      if (inner.size === 0) p(`${name}[${key}] is an empty entry`);
      for (const [id, t] of inner) {
        if (state.allocations.get(id) !== t) p(`${name}[${key}] holds untracked allocation ${id}`);
        else if (!matches(key, t)) p(`${name}[${key}] holds ${id}, which belongs elsewhere`);
      }
    }
  };
  index(
    'allocationsByBlock',
    state.allocationsByBlock,
    (k, t) => state.allocations.get(t.id)?.blockCidr === k,
  );
  index(
    'allocationsByNode',
    state.allocationsByNode,
    (k, t) => state.allocations.get(t.id)?.node === k,
  );
  index(
    'allocationsByHandle',
    state.allocationsByHandle,
    (k, t) => state.allocations.get(t.id)?.handle === k,
  );
  for (const [id, t] of state.confirmedLeaks) {
    if (state.allocations.get(id) !== t || !t.confirmedLeak)
      p(`confirmedLeaks holds ${id}, not a tracked confirmed leak`);
  }
}

/** Disagreements about blocks: the node, pool, empty-block, cold-block and timer maps; handles. */
function blockProblems(state: GcState, p: (problem: string) => void): void {
  for (const [node, cidrs] of state.blocksByNode) {
    if (cidrs.size === 0) p(`blocksByNode[${node}] is an empty entry`);
    for (const cidr of cidrs) {
      if (state.blocks.get(cidr)?.affinityHost !== node)
        p(`blocksByNode[${node}] holds ${cidr}, not affine to it`);
    }
  }
  for (const [pool, cidrs] of state.blocksByPool) {
    if (cidrs.size === 0) p(`blocksByPool[${pool}] is an empty entry`);
    for (const cidr of cidrs)
      if (state.blocks.get(cidr)?.pool !== pool)
        p(`blocksByPool[${pool}] holds ${cidr}, not of that pool`);
  }
  for (const [cidr, info] of state.blocks) {
    if (info.affinityHost !== undefined && !state.blocksByNode.get(info.affinityHost)?.has(cidr)) {
      p(`block ${cidr} missing from blocksByNode[${info.affinityHost}]`);
    }
    if (!state.blocksByPool.get(info.pool)?.has(cidr))
      p(`block ${cidr} missing from blocksByPool[${info.pool}]`);
    const shouldBeEmpty = info.affinityHost !== undefined && info.empty;
    if (shouldBeEmpty !== state.emptyBlocks.has(cidr))
      p(`block ${cidr}: emptyBlocks disagrees with the block`);
    if (state.coldBlocks.get(cidr) !== (info.earliestReleasedMs ?? undefined))
      p(`block ${cidr}: coldBlocks disagrees with the block`);
  }
  for (const [cidr, node] of state.emptyBlocks) {
    const info = state.blocks.get(cidr);
    if (!info || info.affinityHost !== node || !info.empty)
      p(`emptyBlocks holds ${cidr} (${node}), not an empty block of that node`);
  }
  for (const cidr of state.emptySince.keys())
    if (!state.emptyBlocks.has(cidr)) p(`emptySince holds ${cidr}, not an empty block`);
  for (const cidr of state.coldBlocks.keys())
    if (!state.blocks.has(cidr)) p(`coldBlocks holds unknown block ${cidr}`);
  for (const cidr of state.allocationsByBlock.keys())
    if (!state.blocks.has(cidr)) p(`allocationsByBlock holds unknown block ${cidr}`);
  for (const [key, h] of state.handles)
    if (h.key.handleId !== key) p(`handles[${key}] is keyed wrongly`);
}

/**
 * What the state knows about the store, with no leak timers or other judgements: two states built
 * from the same data describe themselves equally, so the live state can be compared with a fresh
 * rebuild from a list of the store.
 */
export function describeState(state: GcState): unknown {
  const sorted = <T>(entries: Iterable<[string, T]>): [string, T][] =>
    [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    blocks: sorted(state.blocks).map(([cidr, b]) => [
      cidr,
      b.affinity ?? null,
      b.empty,
      b.free,
      b.earliestReleasedMs,
      b.pool,
      String(b.sequenceNumber),
    ]),
    allocations: sorted(state.allocations).map(([id, t]) => [
      id,
      t.node ?? null,
      t.kind,
      String(t.sequenceNumber),
      JSON.stringify(sorted(Object.entries(t.attrs))),
    ]),
    nodes: sorted(state.allocationsByNode).map(([n, m]) => [n, [...m.keys()].sort()]),
    handlesWithAllocations: sorted(state.allocationsByHandle).map(([h, m]) => [h, m.size]),
    blocksByNode: sorted(state.blocksByNode).map(([n, s]) => [n, [...s].sort()]),
    blocksByPool: sorted(state.blocksByPool).map(([n, s]) => [n, [...s].sort()]),
    emptyBlocks: sorted(state.emptyBlocks),
    coldBlocks: sorted(state.coldBlocks),
    pools: sorted(state.pools).map(([n, p]) => [n, p.cidrText, p.blockSize]),
    reservations: [...state.reservations.keys()].sort(),
    handles: sorted(state.handles).map(([k, h]) => [k, h.handleId, h.count]),
    calicoNodes: sorted(state.calicoNodes).map(([n, r]) => [n, typeof r === 'string' ? r : null]),
    ipCooldownSeconds: state.ipCooldownSeconds,
    datastoreReady: state.datastoreReady,
  };
}
