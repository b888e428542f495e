import type { StartReport } from './daemon-reports.js';
import type { DaemonState } from './daemon-state.js';
import { persistState } from './daemon-state.js';
import { DeviceError, toErrorBody } from './device-error.js';
import type { StartPlan } from './plan-start.js';
import { planStart } from './plan-start.js';
import { judgeStartUnderRefusal } from './refused-revision.js';
import { formatLxcNetwork } from './render-lxc-network.js';
import { toLeaseView } from './views.js';

/** The start's plan (undefined: nothing to lease) under the revision in force and a refused one. */
function planServedStart(state: DaemonState, container: string): StartPlan | undefined {
  const { refused, current } = state;
  if (refused !== undefined && judgeStartUnderRefusal(refused, container) === 'no-network')
    return undefined;
  if (current === undefined) throw new DeviceError('NoRevision', 'no revision applied yet');
  return planStart(state.book, current.revision, container);
}

/**
 * Plans a start and persists its leases before answering (see `DeviceDaemon.start`); a refused
 * start is counted, logged and thrown, with no lease of it kept.
 */
export async function startContainer(state: DaemonState, container: string): Promise<StartReport> {
  const { metrics } = state;
  const { logger } = state.deps;
  metrics.starts.inc();
  let plan: StartPlan | undefined;
  try {
    plan = planServedStart(state, container);
  } catch (e) {
    if (e instanceof DeviceError) {
      metrics.startRefusals.inc({ code: e.code });
      logger.log('error', 'refusing to start', { container, error: toErrorBody(e) });
    }
    throw e;
  }
  if (plan !== undefined) await persistState(state, { book: plan.book, pools: state.hostPools });
  state.running.add(container);
  for (const l of plan?.leases ?? []) {
    logger.log('info', 'platform network', {
      container,
      interface: l.interface,
      ip: l.address,
      mac: l.mac,
      pool: l.pool,
    });
  }
  const config = plan?.config;
  return {
    container,
    leases: (plan?.leases ?? []).map(toLeaseView),
    config,
    lxc: config === undefined ? '' : formatLxcNetwork(config),
  };
}
