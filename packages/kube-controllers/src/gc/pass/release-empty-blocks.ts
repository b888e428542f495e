import { isIpamError } from '@netledger/ipam-core';
import { planEmptyBlockReleases } from '../plan-blocks.js';
import type { PassRun } from './pass-run.js';

/**
 * The fourth phase: records blocks first seen empty, then (a leader only) releases the affinity of
 * the empty blocks past their grace period or of a full pool, except those of nodes about to be
 * cleaned up whole. A block found not empty after all starts its wait again. Returns how many
 * affinities it released.
 */
export async function releaseEmptyBlocks(
  run: PassRun,
  releasingNodes: ReadonlySet<string>,
): Promise<number> {
  const { state, backoff, nowMs, ports, settings } = run.ctx;
  const grace = settings.leakGracePeriodMs;
  let released = 0;
  const plan = planEmptyBlockReleases(state, {
    nowMs,
    leakGracePeriodMs: grace,
    releasingNodes,
    isBackedOff: (c) => backoff.isBackedOff(`empty:${c}`, nowMs),
  });
  for (const cidr of plan.firstSeenEmpty) state.emptySince.set(cidr, nowMs);
  for (const r of plan.releases) {
    if (!run.mayWrite()) break;
    try {
      await ports.ipam.releaseBlockAffinity(r.cidr, { mustBeEmpty: true });
      released++;
      backoff.succeeded(`empty:${r.cidr}`);
      ports.logger.log('info', 'released the affinity of an empty block', {
        block: r.cidr,
        node: r.node,
        reason: r.reason,
      });
    } catch (e) {
      if (isIpamError(e, 'BlockNotEmpty')) state.emptySince.delete(r.cidr);
      else if (!isIpamError(e, 'DoesNotExist'))
        run.fail({ operation: 'release-empty-block', item: `empty:${r.cidr}` }, e, {
          block: r.cidr,
        });
    }
  }
  if (grace !== null && grace > 0)
    for (const since of state.emptySince.values()) run.deadline(since + grace + 1);
  return released;
}
