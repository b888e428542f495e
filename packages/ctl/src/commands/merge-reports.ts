import type { ReleaseOptions } from '@netledger/ipam-core';
import type { CheckReport, ReportHandle } from './check-report.js';

/** What the merged reports say to release. */
export interface MergedReports {
  readonly ips: ReleaseOptions[];
  readonly handles: ReportHandle[];
}

/**
 * calicoctl's `mergeReports`: addresses that every report lists as neither in use nor cooling
 * down (the last report's handle and sequence number are used), and leaked handles present in
 * every report at the same revision. Pure.
 */
export function mergeReports(reports: readonly CheckReport[]): MergedReports {
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
