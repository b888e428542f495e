import { parseIp } from '@netledger/accounting';
import { isIpamError } from '@netledger/ipam-core';
import type { Datastore, IpamClient, ReleaseOptions } from '@netledger/ipam-core';
import { CtlError } from '../ctl-error.js';
import type { CheckReport, ReportHandle } from './check-report.js';
import { isLocked, readClusterInformation } from './cluster-information.js';

/**
 * `ipam release --ip IP`: releases one address with no handle or sequence check (calicoctl's).
 * `Failed` ("IP address X is not assigned") when it was free or already cooling down.
 */
export async function releaseIp(ipam: IpamClient, ip: string): Promise<{ text: string }> {
  try {
    parseIp(ip);
  } catch {
    throw new CtlError('InvalidInput', `invalid IP address: ${ip}`);
  }
  const { unallocated } = await ipam.releaseIps([{ address: ip }]);
  if (unallocated.length > 0) throw new CtlError('Failed', `IP address ${ip} is not assigned`);
  return { text: `Successfully released IP address ${ip}\n` };
}

/** A parsed report and where it came from. */
export interface NamedReport {
  readonly source: string;
  readonly report: CheckReport;
}

/** Options of {@link releaseFromReports}. */
export interface ReleaseFromReportsOptions {
  readonly reports: readonly NamedReport[];
  /** Overrides the version and lock checks (never the cluster GUID or staleness). */
  readonly force: boolean;
  /** This netledgerctl's version; reports from another version are refused without `force`. */
  readonly version: string;
  /** Progress characters (`.`/`x` per handle) as they happen. */
  readonly progress?: (text: string) => void;
}

/** What the merged reports say to release. */
export interface MergedReports {
  readonly ips: ReleaseOptions[];
  readonly handles: ReportHandle[];
}

/**
 * calicoctl's `mergeReports`: addresses that every report lists as neither in use nor cooling
 * down (the last report's handle and sequence number are used), and leaked handles present in
 * every report at the same revision.
 */
function mergeReports(reports: readonly CheckReport[]): MergedReports {
  const leakedIn = (r: CheckReport, ip: string) =>
    (r.allocations[ip] ?? []).filter((a) => !a.inUse && !a.coolingDown);
  const last = reports[reports.length - 1];
  const ips: ReleaseOptions[] = [];
  if (last) {
    for (const ip of Object.keys(last.allocations).sort()) {
      if (!reports.every((r) => leakedIn(r, ip).length > 0)) continue;
      for (const a of leakedIn(last, ip)) {
        ips.push({
          address: a.ip,
          ...(a.handle && { handle: a.handle }),
          ...(a.sequenceNumber !== undefined && { sequenceNumber: a.sequenceNumber }),
        });
      }
    }
  }
  const handles = (last?.leakedHandles ?? []).filter((h) =>
    reports.every((r) =>
      (r.leakedHandles ?? []).some((x) => x.ID === h.ID && x.Revision === h.Revision),
    ),
  );
  return { ips, handles };
}

/**
 * `ipam release --from-report FILE...` (calicoctl's `ReleaseFromReports`). Refuses, changing
 * nothing, when a report is from another cluster (GUID), from another netledgerctl version
 * (unless `force`), when no report carries the current ClusterInformation revision (stale), or
 * when the datastore is not locked (unless `force`). Then releases the merged leaked addresses
 * in one call, each guarded by its handle and sequence number (an address reallocated since the
 * report fails its block's batch, which is reported, not retried), and deletes each merged
 * orphaned handle only if its revision (and uid) still match. The result's `exitCode` is 1 when
 * any release or deletion failed.
 */
export async function releaseFromReports(
  ctx: { ipam: IpamClient; datastore: Datastore },
  o: ReleaseFromReportsOptions,
): Promise<{
  text: string;
  exitCode: number;
  released: ReleaseOptions[];
  deletedHandles: string[];
}> {
  const out: string[] = [];
  const p = (line: string): void => void out.push(line + '\n');
  if (o.reports.length === 0) throw new CtlError('Usage', 'no report given');
  const ci = await readClusterInformation(ctx.datastore);
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
    p(
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
    p('WARNING: Data store is not locked. Ignoring due to --force option');
  }

  const merged = mergeReports(o.reports.map((r) => r.report));
  let failed = false;
  let released: ReleaseOptions[] = [];
  if (merged.ips.length === 0) p("Report didn't contain any leaked IPs to clean up.");
  else {
    p(`Releasing ${merged.ips.length} old IPs...`);
    try {
      const result = await ctx.ipam.releaseIps(merged.ips);
      released = result.released;
      p(`Released ${result.released.length} IPs successfully`);
      if (result.unallocated.length > 0) {
        p(
          `${result.unallocated.length} addresses marked as leaked in the report had already been cleaned up.`,
        );
      }
    } catch (e) {
      failed = true;
      const partial = isIpamError(e)
        ? (e.partial as { released?: ReleaseOptions[] } | undefined)
        : undefined;
      released = partial?.released ?? [];
      p(
        `An error occurred while releasing some IPs: ${(e as Error).message}.  Problems are often caused by an out-of-date IPAM report.  Try regenerating the IPAM report and retry.`,
      );
    }
  }

  const deletedHandles: string[] = [];
  if (merged.handles.length === 0) p("Report didn't contain any handles to clean up.");
  else {
    p(`Deleting ${merged.handles.length} handles...`);
    p("Key: '.' = Deleted OK; 'x' = skip, handle missing/changed.");
    let skipped = 0;
    let errors = 0;
    let marks = '';
    for (const h of merged.handles) {
      const key = { kind: 'IPAMHandle', handleId: h.ID } as const;
      let mark: string;
      try {
        const kv = await ctx.datastore.get(key);
        if (
          kv.revision !== h.Revision ||
          (h.UID !== null && kv.uid !== undefined && kv.uid !== h.UID)
        ) {
          mark = 'x';
        } else {
          await ctx.datastore.delete(key, {
            revision: h.Revision,
            ...(h.UID !== null && { uid: h.UID }),
          });
          deletedHandles.push(h.ID);
          mark = '.';
        }
      } catch (e) {
        if (isIpamError(e, 'DoesNotExist', 'UpdateConflict')) mark = 'x';
        else {
          mark = 'E';
          errors++;
        }
      }
      if (mark === 'x') skipped++;
      marks += mark;
      o.progress?.(mark);
    }
    o.progress?.('\n');
    p(marks);
    if (errors > 0) failed = true;
    p(`Released ${deletedHandles.length} handles; ${skipped} skipped; ${errors} errors.`);
  }
  p('You may now unlock the data store.');
  return { text: out.join(''), exitCode: failed ? 1 : 0, released, deletedHandles };
}
