import { applyHostNetwork } from './apply-host-network.js';
import type { ApplyReport } from './daemon-reports.js';
import type { DaemonState } from './daemon-state.js';
import { countApplyFailure, isRevisionRefusal, persistState } from './daemon-state.js';
import { checkHost } from './check-host.js';
import { DeviceError, toErrorBody } from './device-error.js';
import { logInstalledRevision } from './log-installed-revision.js';
import type { NatBackend } from './nat-driver.js';
import { planRevision } from './plan-revision.js';
import type { RevisionPlan } from './plan-revision.js';
import type { Revision, RevisionFiles } from './revision.js';
import { encodeRevisionFile } from './revision-codec.js';
import { toLeaseView, toPoolViews } from './views.js';

/** Counts a failed host step; logs it unless it is a refusal (which the caller records). */
function hostStepFailed(state: DaemonState, e: unknown): never {
  if (e instanceof DeviceError && !isRevisionRefusal(e))
    state.deps.logger.log('error', 'host network set-up failed; the revision in force stays', {
      error: toErrorBody(e),
    });
  return countApplyFailure(state, e);
}

/** Checks the host and sets its network up for a revision that uses one; no-op otherwise. */
async function setUpHost(
  state: DaemonState,
  args: { readonly plan: RevisionPlan; readonly revision: Revision; readonly force: boolean },
): Promise<{ natBackend: NatBackend | undefined; warnings: readonly string[] }> {
  const { plan, revision } = args;
  const usesNetwork =
    revision.pools.size > 0 ||
    [...revision.containers.values()].some((c) => c.network.mode !== 'none');
  if (!usesNetwork && state.hostPools.size === 0) {
    state.deps.logger.log(
      'info',
      'no network pools and no container network blocks: IPAM setup is a no-op',
    );
    return { natBackend: undefined, warnings: [] };
  }
  const failed = (e: unknown): never => hostStepFailed(state, e);
  await checkHost(state, args).catch(failed);
  return applyHostNetwork({
    ...state.deps,
    diff: plan.diff,
    previous: state.hostPools,
    pools: revision.pools,
  }).catch(failed);
}

/**
 * Installs a parsed revision: host checks, host network, leases, persistence, then it is the
 * revision in force. Throws what the host checks refuse (`DropsInUse`, `RouteConflict`) or a failed
 * host step (`HostFailure`) before any lease or the revision in force changes.
 */
export async function installRevision(
  state: DaemonState,
  args: { readonly files: RevisionFiles; readonly revision: Revision; readonly force: boolean },
): Promise<ApplyReport> {
  const { files, revision } = args;
  const plan = planRevision(state.book, state.hostPools, revision);
  const host = await setUpHost(state, { plan, revision, force: args.force });
  for (const w of host.warnings) state.deps.logger.log('warn', w);
  state.metrics.natWarnings.inc(host.warnings.length);
  await persistState(state, { book: plan.book, pools: revision.pools });
  const text = encodeRevisionFile(files);
  if (text !== state.savedRevisionText) {
    await state.deps.revisions.save(files);
    state.savedRevisionText = text;
  }
  state.current = { files, revision };
  for (const name of state.running) if (!revision.containers.has(name)) state.running.delete(name);
  state.metrics.applies.inc();
  logInstalledRevision(state.deps.logger, { plan, revision });
  return {
    pools: toPoolViews(revision.pools, state.book),
    containers: [...revision.containers.values()].map((c) => ({
      name: c.name,
      mode: c.network.mode,
      ...(c.error === undefined ? {} : { error: toErrorBody(c.error) }),
    })),
    released: plan.released.map(toLeaseView),
    natBackend: host.natBackend,
    warnings: host.warnings,
  };
}
