import type { KVPair } from '@netledger/ipam-core';
import { CtlError } from '../ctl-error.js';
import type { CheckReport } from './check-report.js';
import { isLocked } from './cluster-information.js';

/** A parsed report and where it came from. */
export interface NamedReport {
  readonly source: string;
  readonly report: CheckReport;
}

/** Options of {@link vetReports}. */
export interface VetReportsOptions {
  readonly reports: readonly NamedReport[];
  /** The datastore's ClusterInformation `default`, undefined when it has none. */
  readonly clusterInformation: KVPair<'ClusterInformation'> | undefined;
  /** Overrides the version and lock checks (never the cluster GUID or staleness). */
  readonly force: boolean;
  /** This netledgerctl's version. */
  readonly version: string;
}

/**
 * calicoctl's checks before `ipam release --from-report`, in its order: every report is from this
 * cluster (GUID), from this version (else a warning with `force`), at least one carries the
 * current ClusterInformation revision (not stale), and the datastore is locked (else a warning
 * with `force`). Throws `Refused` naming what failed; returns the warnings to print. Pure.
 */
export function vetReports(o: VetReportsOptions): string[] {
  const ci = o.clusterInformation;
  const warnings: string[] = [];
  const guid = ci?.value.spec.clusterGUID ?? '';
  for (const { source, report } of o.reports) {
    if (report.clusterGUID !== guid) {
      throw new CtlError(
        'Refused',
        `cluster does not match the provided report (${source}): mismatched cluster GUID. Refusing to release`,
      );
    }
  }
  for (const { source, report } of o.reports) {
    if (report.version === o.version) continue;
    if (!o.force) {
      throw new CtlError(
        'Refused',
        `report ${source} was produced using a different version (${report.version}) of netledgerctl. Refusing to release`,
      );
    }
    warnings.push(
      'WARNING: Report was produced using a different version of netledgerctl. Ignoring due to --force option',
    );
  }
  const revision = ci?.revision ?? '';
  if (!o.reports.some((r) => r.report.clusterInformationRevision === revision)) {
    throw new CtlError(
      'Refused',
      'the provided reports are all stale - at least one should be up-to-date. Please generate a new report while the data store is locked and try again',
    );
  }
  if (!isLocked(ci?.value)) {
    if (!o.force) {
      throw new CtlError(
        'Refused',
        'data store is not locked. Either lock the data store, or re-run with --force',
      );
    }
    warnings.push('WARNING: Data store is not locked. Ignoring due to --force option');
  }
  return warnings;
}
