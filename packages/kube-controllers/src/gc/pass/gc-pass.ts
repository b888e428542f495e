import { cleanUpDeletedNodes } from './clean-up-deleted-nodes.js';
import { collectColdBlocks } from './collect-cold-blocks.js';
import { deleteOrphanHandles } from './delete-orphan-handles.js';
import type { GcPassContext } from './gc-pass-context.js';
import { judgeNodes } from './judge-nodes.js';
import { PassRun } from './pass-run.js';
import { releaseEmptyBlocks } from './release-empty-blocks.js';
import { releaseLeaks } from './release-leaks.js';

/** What a pass did. */
export interface GcPassReport {
  readonly skipped?: 'datastore-not-ready';
  readonly scannedNodes: number;
  readonly candidates: number;
  readonly confirmed: number;
  readonly released: number;
  readonly notReleased: number;
  readonly coldBlocksCollected: number;
  readonly emptyBlocksReleased: number;
  readonly nodesCleaned: number;
  readonly handlesDeleted: number;
  readonly errors: number;
  /** When the pass should run again for time-based work (a grace period ending), if ever. */
  readonly nextDeadlineMs: number | undefined;
  /** Confirmed leaks or node cleanups left for a later pass. */
  readonly workRemaining: boolean;
}

const PAUSED: GcPassReport = {
  skipped: 'datastore-not-ready',
  scannedNodes: 0,
  candidates: 0,
  confirmed: 0,
  released: 0,
  notReleased: 0,
  coldBlocksCollected: 0,
  emptyBlocksReleased: 0,
  nodesCleaned: 0,
  handlesDeleted: 0,
  errors: 0,
  nextDeadlineMs: undefined,
  workRemaining: false,
};

/**
 * One GC pass (Calico's `syncIPAM`): judge allocations of the dirty nodes (all of them on a full
 * scan), release confirmed leaks (all or none per handle, re-validated against the API just
 * before, one `releaseIps` per block with handle and sequence number per address), the cold-IP
 * backstop, empty-block affinity release, deleted-node cleanup and orphan handle deletion. Only a
 * leader writes; a follower still judges, so its metrics are current. A failed write backs its
 * item off and leaves the rest of the pass going; what is left over rolls to the next pass.
 */
export async function runGcPass(ctx: GcPassContext): Promise<GcPassReport> {
  const { state, ports, backoff } = ctx;
  if (!state.datastoreReady) {
    ports.logger.log(
      'info',
      'datastore is locked (ClusterInformation datastoreReady=false): GC paused',
    );
    return PAUSED;
  }
  const run = new PassRun(ctx);
  const judged = judgeNodes(run);
  const confirmed = state.confirmedLeaks.size;
  run.writes = ports.isLeader();
  const { released, notReleased } = await releaseLeaks(run);
  const coldBlocksCollected = await collectColdBlocks(run);
  const emptyBlocksReleased = await releaseEmptyBlocks(run, new Set(judged.releasableNodes.keys()));
  const nodesCleaned = await cleanUpDeletedNodes(run, judged.releasableNodes);
  const handlesDeleted = await deleteOrphanHandles(run);
  const retry = backoff.nextRetryMs();
  if (retry !== undefined) run.deadline(retry);
  return {
    scannedNodes: judged.scannedNodes,
    candidates: judged.candidates,
    confirmed,
    released,
    notReleased,
    coldBlocksCollected,
    emptyBlocksReleased,
    nodesCleaned,
    handlesDeleted,
    errors: run.errors,
    nextDeadlineMs: run.nextDeadlineMs,
    workRemaining:
      [...state.confirmedLeaks.values()].some((t) => !t.releaseRequested) ||
      judged.releasableNodes.size > nodesCleaned,
  };
}
