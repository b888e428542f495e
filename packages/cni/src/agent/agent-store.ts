// The node agent's view of its store: the wrappers its IPAM client reads and writes through, from
// the store outwards: every request counted, a watch-fed mirror of what assignments read (pools,
// reservations, the IPAM config, Nodes, this node's affinities), the blocks and handles this agent
// last wrote (a DEL's reads), and an ADD's handle presumed absent.
import type { Datastore } from '@netledger/ipam-core';
import { createMirroredDatastore } from '@netledger/ipam-core/adapter';
import type { MirroredDatastore } from '@netledger/ipam-core/adapter';
import { agentMirrorLists } from './agent-mirror.js';
import { countedDatastore } from './counted-datastore.js';
import { createPresumingDatastore } from './handle-presumption.js';
import type { PresumingDatastore } from './handle-presumption.js';
import { createWrittenVersions } from './written-versions.js';
import type { WrittenVersions } from './written-versions.js';

/** Options of {@link createAgentStore}. */
export interface AgentStoreOptions {
  /** The node the agent serves: its own affinities are mirrored, not the cluster's. */
  readonly nodename: string;
  /** Told of every request sent to the store, by operation (`get`, `list`, `create`, ...). */
  readonly count?: (operation: string) => void;
  /** Told why the mirror fell back to the store and re-syncs (a failed sync, a broken watch). */
  readonly onFallback?: (error: unknown) => void;
}

/** The agent's wrappers around one store. */
export interface AgentStore {
  /** What the agent's IPAM client and its requests use: the outermost wrapper. */
  readonly datastore: Datastore;
  /** The watch-fed mirror (`isSynced`); closing it closes the store. */
  readonly mirror: MirroredDatastore;
  /** The versions this agent wrote or read (serve-trusting.ts serves a DEL from them). */
  readonly versions: WrittenVersions;
  /** An ADD's handle presumed absent (serve-agent-request.ts). */
  readonly presuming: PresumingDatastore;
}

/**
 * Puts the agent's wrappers around `raw`: counted, mirrored (agent-mirror.ts's lists), written
 * versions, handle presumption. Every write still goes to `raw` as a compare-and-swap; reads of
 * mirrored kinds wait for the mirror's first sync. Nothing is read until the first request.
 */
export function createAgentStore(raw: Datastore, o: AgentStoreOptions): AgentStore {
  const counted = o.count ? countedDatastore(raw, o.count) : raw;
  const mirror = createMirroredDatastore(counted, {
    lists: agentMirrorLists(o.nodename),
    ...(o.onFallback && { onFallback: o.onFallback }),
  });
  const versions = createWrittenVersions(mirror);
  const presuming = createPresumingDatastore(versions.datastore);
  return { datastore: presuming.datastore, mirror, versions, presuming };
}
