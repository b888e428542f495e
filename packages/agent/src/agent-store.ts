// The node agent's view of its store: the wrappers its IPAM client reads and writes through, from
// the store outwards: every request counted, then a watch-fed mirror of what assignments read
// (pools, reservations, the IPAM config, Nodes, this node's affinities, the blocks), which takes
// the agent's own writes at once: one cache, kept by the store's watch and by every write.
import type { Datastore } from '@netledger/ipam-core';
import { createMirroredDatastore } from '@netledger/ipam-core/adapter';
import type { MirroredDatastore } from '@netledger/ipam-core/adapter';
import { agentMirrorLists } from './agent-mirror.js';
import { countedDatastore } from './counted-datastore.js';

/** Options of {@link createAgentStore}. */
export interface AgentStoreOptions {
  /** The node the agent serves: its own affinities are mirrored, not the cluster's. */
  readonly nodename: string;
  /** Told of every request sent to the store, by operation (`get`, `list`, `create`, ...). */
  readonly count?: (operation: string) => void;
  /** Told why the mirror fell back to the store and re-syncs (a failed sync, a broken watch). */
  readonly onFallback?: (error: unknown) => void;
}

/**
 * Puts the agent's wrappers around `raw`: counted, then mirrored (agent-mirror.ts's lists), which
 * is what the agent's requests use (`isSynced`; closing it closes `raw`). Every write still goes
 * to `raw` as a compare-and-swap; reads of mirrored kinds wait for the mirror's first sync.
 * Nothing is read until the first request.
 */
export function createAgentStore(raw: Datastore, o: AgentStoreOptions): MirroredDatastore {
  const counted = o.count ? countedDatastore(raw, o.count) : raw;
  return createMirroredDatastore(counted, {
    lists: agentMirrorLists(o.nodename),
    ...(o.onFallback && { onFallback: o.onFallback }),
  });
}
