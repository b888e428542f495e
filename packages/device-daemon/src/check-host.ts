import type { DaemonState } from './daemon-state.js';
import { droppedBridges } from './diff-pools.js';
import { dropsInUseError, findInUseDrops } from './find-in-use-drops.js';
import { findRouteConflicts, routeConflictError } from './find-route-conflicts.js';
import type { RevisionPlan } from './plan-revision.js';
import type { Revision } from './revision.js';

/**
 * Refuses (before anything changes) a revision that would drop what running containers use
 * (`DropsInUse`), unless `force`, and one whose pool subnets the host already routes through other
 * interfaces (`RouteConflict`). Reads the host only; a failed read throws `HostFailure`.
 */
export async function checkHost(
  state: DaemonState,
  args: { readonly plan: RevisionPlan; readonly revision: Revision; readonly force: boolean },
): Promise<void> {
  const { plan, revision, force } = args;
  const { bridges } = state.deps;
  if (!force) {
    const dropped: { pool: string; bridge: string; ports: readonly string[] }[] = [];
    for (const b of droppedBridges(plan.diff))
      dropped.push({ ...b, ports: await bridges.listPorts(b.bridge) });
    const drops = findInUseDrops({ released: plan.released, running: state.running, dropped });
    if (drops.length > 0) throw dropsInUseError(drops);
  }
  if (revision.pools.size === 0) return;
  const ownBridges = new Set(
    [...state.hostPools.values(), ...revision.pools.values()].map((p) => p.bridge),
  );
  const routes = await bridges.listRoutes();
  const conflicts = findRouteConflicts({ pools: revision.pools, routes, ownBridges });
  if (conflicts.length > 0) throw routeConflictError(conflicts);
}
