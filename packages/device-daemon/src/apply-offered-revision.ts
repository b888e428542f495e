import type { ApplyOptions, ApplyReport } from './daemon-reports.js';
import type { DaemonState } from './daemon-state.js';
import { countApplyFailure, isRevisionRefusal } from './daemon-state.js';
import type { DeviceError } from './device-error.js';
import { installRevision } from './install-revision.js';
import { assessRefusedRevision } from './refused-revision.js';
import type { Revision, RevisionFiles } from './revision.js';
import { parseRevision } from './revision.js';

/** Records a refused revision; logs it unless it is the one already refused. */
function refuseRevision(state: DaemonState, files: RevisionFiles, e: DeviceError): void {
  const { refused, current } = state;
  const next = assessRefusedRevision({ files, error: e, current });
  const same =
    refused !== undefined &&
    refused.deviceJson === next.deviceJson &&
    refused.error.code === next.error.code &&
    refused.error.message === next.error.message;
  state.refused = next;
  if (same) return;
  state.deps.logger.log(
    'error',
    current === undefined
      ? 'revision refused; no revision in force'
      : 'revision refused; the last good revision stays in force',
    { error: next.error },
  );
}

/**
 * Parses and installs an offered revision. A revision refused as a whole is recorded (see
 * `refuseRevision`) and thrown; an accepted one forgets the refused one. Either way a throw leaves
 * the revision in force.
 */
export async function applyOfferedRevision(
  state: DaemonState,
  files: RevisionFiles,
  opts: ApplyOptions,
): Promise<ApplyReport> {
  let revision: Revision;
  try {
    revision = parseRevision(files);
  } catch (e) {
    if (isRevisionRefusal(e)) refuseRevision(state, files, e);
    return countApplyFailure(state, e);
  }
  let report: ApplyReport;
  try {
    report = await installRevision(state, { files, revision, force: opts.force === true });
  } catch (e) {
    if (isRevisionRefusal(e)) refuseRevision(state, files, e);
    throw e;
  }
  if (state.refused !== undefined)
    state.deps.logger.log('info', 'revision accepted; the refused one is forgotten');
  state.refused = undefined;
  return report;
}
