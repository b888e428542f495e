import { parseIp } from '@netledger/accounting';
import type { Datastore, IpamClient, ReleaseOptions } from '@netledger/ipam-core';
import { CtlError } from '../ctl-error.js';
import { readClusterInformation } from './cluster-information.js';
import { deleteLeakedHandles } from './delete-leaked-handles.js';
import { mergeReports } from './merge-reports.js';
import { releaseLeakedIps } from './release-leaked-ips.js';
import type { NamedReport } from './vet-reports.js';
import { vetReports } from './vet-reports.js';

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
  if (o.reports.length === 0) throw new CtlError('Usage', 'no report given');
  const warnings = vetReports({
    reports: o.reports,
    clusterInformation: await readClusterInformation(ctx.datastore),
    force: o.force,
    version: o.version,
  });
  const merged = mergeReports(o.reports.map((r) => r.report));
  const ips = await releaseLeakedIps(ctx.ipam, merged.ips);
  const handles = await deleteLeakedHandles(ctx.datastore, {
    handles: merged.handles,
    progress: o.progress,
  });
  const lines = [...warnings, ...ips.lines, ...handles.lines, 'You may now unlock the data store.'];
  return {
    text: lines.map((l) => l + '\n').join(''),
    exitCode: ips.failed || handles.failed ? 1 : 0,
    released: ips.released,
    deletedHandles: handles.deleted,
  };
}
