import { toErrorBody } from './device-error.js';
import type { Logger } from './logger.js';
import type { RevisionPlan } from './plan-revision.js';
import type { Revision } from './revision.js';
import { toLeaseView } from './views.js';

/**
 * Logs what installing a revision did: each released lease, each static IP reservation by its
 * outcome (reserved: info; duplicate or outside the pools: debug; else warn), each container its
 * own files refuse.
 */
export function logInstalledRevision(
  logger: Logger,
  args: { readonly plan: RevisionPlan; readonly revision: Revision },
): void {
  const { plan, revision } = args;
  for (const l of plan.released) logger.log('info', 'released lease', { ...toLeaseView(l) });
  for (const r of plan.reservations) {
    const level =
      r.outcome === 'reserved'
        ? 'info'
        : r.outcome === 'duplicate' || r.outcome === 'outside-pools'
          ? 'debug'
          : 'warn';
    logger.log(level, `static IP from lxc config: ${r.outcome}`, { ...r });
  }
  for (const c of revision.containers.values()) {
    if (c.error !== undefined)
      logger.log('error', 'container refused by its files', {
        container: c.name,
        error: toErrorBody(c.error),
      });
  }
}
