import { applyOfferedRevision } from './apply-offered-revision.js';
import type { BootReport } from './daemon-reports.js';
import type { DaemonState } from './daemon-state.js';
import { isRevisionRefusal } from './daemon-state.js';
import { isDeviceError, toErrorBody } from './device-error.js';
import { installRevision } from './install-revision.js';
import { assessRefusedRevision } from './refused-revision.js';
import type { RevisionFiles } from './revision.js';

/**
 * Brings up the host at start-up (see `DeviceDaemon.boot`): the offered revision, else the last
 * good one re-installed as it was; none in force when that one's subnets are routed elsewhere now.
 */
export async function bootDaemon(
  state: DaemonState,
  files: RevisionFiles | undefined,
): Promise<BootReport> {
  if (files !== undefined) {
    try {
      await applyOfferedRevision(state, files, {});
      return { inForce: 'offered', refused: undefined };
    } catch (e) {
      if (!isRevisionRefusal(e)) throw e;
    }
  }
  const { current } = state;
  if (current === undefined) return { inForce: 'none', refused: state.refused?.error };
  try {
    // The revision that was in force comes back as it was: what it drops was its own.
    await installRevision(state, { ...current, force: true });
  } catch (e) {
    if (!isDeviceError(e, 'RouteConflict')) throw e;
    state.deps.logger.log(
      'error',
      'the last good revision cannot be restored; no revision in force',
      { error: toErrorBody(e) },
    );
    state.refused ??= assessRefusedRevision({ files: current.files, error: e, current: undefined });
    state.current = undefined;
    return { inForce: 'none', refused: state.refused.error };
  }
  return { inForce: 'last-good', refused: state.refused?.error };
}
