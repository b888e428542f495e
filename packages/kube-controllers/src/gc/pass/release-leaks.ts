import type { ReleaseOptions } from '@netledger/ipam-core';
import { isIpamError } from '@netledger/ipam-core';
import { errorText } from '../../logger.js';
import type { TrackedAllocation } from '../tracked-allocation.js';
import type { BlockRelease } from '../plan-releases.js';
import { planReleases } from '../plan-releases.js';
import type { PassRun } from './pass-run.js';
import { revalidateLeaks } from './revalidate-leaks.js';

/** What releasing the confirmed leaks did. */
export interface LeakReleases {
  readonly released: number;
  readonly notReleased: number;
}

/**
 * The second phase (a leader only): releases the confirmed leaks the plan chooses, all or none per
 * handle, re-validated against the API just before, one `releaseIps` per block with handle and
 * sequence number per address. A block whose release fails backs off; the others go on. Stops
 * when the replica loses its lease.
 */
export async function releaseLeaks(run: PassRun): Promise<LeakReleases> {
  if (!run.writes) return { released: 0, notReleased: 0 };
  const { state, settings, backoff, nowMs, ports } = run.ctx;
  const plan = planReleases(state, {
    maxReleases: settings.maxReleasesPerPass,
    isBackedOff: (cidr) => backoff.isBackedOff(`block:${cidr}`, nowMs),
  });
  const blockedHandles = await revalidateLeaks(
    run,
    plan.batches.flatMap((b) => b.allocations),
  );
  let released = 0;
  let notReleased = plan.heldByHandle + plan.deferred;
  for (const batch of plan.batches) {
    const chosen = batch.allocations.filter((t) => !blockedHandles.has(t.handle));
    if (chosen.length === 0) continue;
    if (!ports.isLeader()) break;
    const n = await releaseBatch(run, { blockCidr: batch.blockCidr, allocations: chosen });
    if (n === undefined) notReleased += chosen.length;
    else released += n;
  }
  if (plan.heldByHandle > 0) {
    ports.logger.log('debug', 'confirmed leaks held: another address of their handle is in use', {
      count: plan.heldByHandle,
    });
  }
  return { released, notReleased };
}

/**
 * Releases one block's chosen leaks with one `releaseIps` call. Returns how many addresses it
 * freed (those already unallocated are marked requested but not counted), or undefined when the
 * call failed and nothing of the batch was released.
 */
async function releaseBatch(run: PassRun, batch: BlockRelease): Promise<number | undefined> {
  const { state, backoff, nowMs, ports, observer } = run.ctx;
  const { blockCidr, allocations } = batch;
  const options: ReleaseOptions[] = allocations.map((t) => ({
    address: t.ip,
    handle: t.handle,
    sequenceNumber: t.sequenceNumber,
  }));
  const byIp = new Map(allocations.map((t) => [t.ip, t]));
  const pool = state.blocks.get(blockCidr)?.pool ?? '';
  try {
    const result = await ports.ipam.releaseIps(options);
    backoff.succeeded(`block:${blockCidr}`);
    let released = 0;
    for (const o of result.released) {
      const t = byIp.get(o.address);
      if (!t) continue;
      state.markReleaseRequested(t);
      if (result.unallocated.includes(o.address)) continue;
      released++;
      observer?.reclaimed?.(t, pool);
      logReleased(run, t);
    }
    return released;
  } catch (e) {
    if (isIpamError(e, 'BadSequenceNumber', 'BadHandle')) {
      // An address of the batch was released and re-used between the scan and this call: the
      // sequence number guard refused the whole block's batch, as it must. The watch brings the
      // new state; this block waits a little before it is tried again.
      backoff.failed(`block:${blockCidr}`, nowMs);
      ports.logger.log(
        'info',
        'not released: an address changed since the scan (re-used); the block is judged again',
        {
          block: blockCidr,
          addresses: allocations.map((t) => t.ip).join(','),
          error: errorText(e),
        },
      );
    } else {
      run.fail({ operation: 'release-leaks', item: `block:${blockCidr}` }, e, {
        block: blockCidr,
      });
    }
    return undefined;
  }
}

function logReleased(run: PassRun, t: TrackedAllocation): void {
  run.ctx.ports.logger.log('info', 'released leaked address', {
    ip: t.ip,
    handle: t.handle,
    block: t.blockCidr,
    node: t.node,
    namespace: t.attrs.namespace,
    pod: t.attrs.pod,
    type: t.attrs.type,
    reason: t.reason,
    leakedAt: t.leakedAtMs === null ? undefined : new Date(t.leakedAtMs).toISOString(),
  });
}
