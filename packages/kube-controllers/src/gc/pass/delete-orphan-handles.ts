import { isIpamError } from '@netledger/ipam-core';
import type { OrphanHandle } from '../plan-blocks.js';
import { planOrphanHandles } from '../plan-blocks.js';
import type { PassRun } from './pass-run.js';

/**
 * The sixth phase: records when handles became orphans (or hold an address again), then (a leader
 * only) deletes those orphaned past the grace period, each at the revision it was observed at, so
 * a CNI ADD in flight wins. Returns how many it deleted.
 */
export async function deleteOrphanHandles(run: PassRun): Promise<number> {
  const { state, backoff, nowMs, settings } = run.ctx;
  const grace = settings.leakGracePeriodMs;
  const plan = planOrphanHandles(state, {
    nowMs,
    leakGracePeriodMs: grace,
    isBackedOff: (k) => backoff.isBackedOff(`handle:${k}`, nowMs),
  });
  for (const key of plan.inUse) {
    const h = state.handles.get(key);
    if (h) h.orphanSinceMs = null;
  }
  for (const key of plan.firstSeenOrphan) {
    const h = state.handles.get(key);
    if (h) h.orphanSinceMs = nowMs;
  }
  let deleted = 0;
  for (const d of plan.deletions) {
    if (!run.mayWrite()) break;
    if (await deleteOrphanHandle(run, d)) deleted++;
  }
  if (grace !== null && grace > 0) {
    for (const h of state.handles.values())
      if (h.orphanSinceMs !== null) run.deadline(h.orphanSinceMs + grace + 1);
  }
  return deleted;
}

/** Deletes one orphan handle if it is still as planned; true when it did. */
async function deleteOrphanHandle(run: PassRun, d: OrphanHandle): Promise<boolean> {
  const { state, backoff, ports } = run.ctx;
  const h = state.handles.get(d.key.handleId);
  if (!h || h.revision !== d.revision || state.allocationsByHandle.has(d.handleId)) return false;
  try {
    await ports.datastore.delete(d.key, {
      revision: d.revision,
      ...(d.uid !== undefined && { uid: d.uid }),
    });
    state.deleteHandle(d.key.handleId);
    backoff.succeeded(`handle:${d.key.handleId}`);
    ports.logger.log(
      'info',
      'deleted an orphan handle: it held no address for longer than the grace period',
      {
        handle: d.handleId,
        since: h.orphanSinceMs === null ? undefined : new Date(h.orphanSinceMs).toISOString(),
      },
    );
    return true;
  } catch (e) {
    if (isIpamError(e, 'UpdateConflict'))
      h.orphanSinceMs = null; // changed since: observe again
    else if (isIpamError(e, 'DoesNotExist')) state.deleteHandle(d.key.handleId);
    else
      run.fail({ operation: 'delete-handle', item: `handle:${d.key.handleId}` }, e, {
        handle: d.handleId,
      });
    return false;
  }
}
