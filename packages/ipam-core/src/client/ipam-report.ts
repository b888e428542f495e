import type { IpamContext } from './ipam-context.js';

/** How serious a reported failure is: the level Calico logs the same failure at. */
type IpamReportLevel = 'warning' | 'error';

/**
 * The best-effort steps whose failure the client reports instead of failing the operation (Calico
 * logs each with `log.WithError(err)` in `libcalico-go/lib/ipam` and carries on):
 * - `decrementHandle`: taking released addresses off their handle (the handle over-counts until
 *   its next release);
 * - `ensureConsistentAffinity`: releasing an emptied block whose pool no longer selects its host;
 * - `deleteAffinity`: removing this host's pending affinity after losing a block to another host,
 *   or a stale one (the affinity is left behind);
 * - `useAffineBlock`: one of the host's affine blocks could not be used; the next one is tried;
 * - `reclaimBlock`: releasing another host's empty block to reclaim it; the next one is tried;
 * - `assignFromNewBlock`, `readBorrowedBlock`, `assignFromBorrowedBlock`: one block gave no
 *   addresses; the assignment goes on with the next;
 * - `releaseHostAffinity`: one of a host's affinities could not be released; the others are, and
 *   only the last such failure is thrown.
 */
type IpamReportOperation =
  | 'decrementHandle'
  | 'ensureConsistentAffinity'
  | 'deleteAffinity'
  | 'useAffineBlock'
  | 'reclaimBlock'
  | 'assignFromNewBlock'
  | 'readBorrowedBlock'
  | 'assignFromBorrowedBlock'
  | 'releaseHostAffinity';

/** A failed best-effort step: what failed, on what, and why. */
export interface IpamReport {
  readonly level: IpamReportLevel;
  /** What failed, in Calico's words (its log message for the same failure). */
  readonly message: string;
  readonly operation: IpamReportOperation;
  /** The block the step was about. */
  readonly cidr?: string;
  /** The handle the step was about. */
  readonly handle?: string;
  /** The host whose affinity the step was about. */
  readonly host?: string;
  /** The error the step failed with. */
  readonly cause: unknown;
}

/**
 * Where the client reports failed best-effort steps (`createIpamClient({ report })`): a logger,
 * a metric, a test's list. Called synchronously; what it throws is ignored.
 */
export type IpamReporter = (report: IpamReport) => void;

/**
 * One line for a log: the message, the facts, then the cause's message, e.g. `Failed to decrement
 * handle (handle h1, block 10.0.0.0/26): etcd unavailable`. Pure.
 */
export function formatIpamReport(report: IpamReport): string {
  const facts = [
    report.handle !== undefined && `handle ${report.handle}`,
    report.cidr !== undefined && `block ${report.cidr}`,
    report.host !== undefined && `host ${report.host}`,
  ].filter((f): f is string => f !== false);
  const about = facts.length > 0 ? ` (${facts.join(', ')})` : '';
  const cause = report.cause instanceof Error ? report.cause.message : String(report.cause);
  return `${report.message}${about}: ${cause}`;
}

/**
 * Hands `report` to the client's reporter, if it has one. Never throws: a reporter's failure must
 * not change the outcome of the operation it reports on, and there is no one else to tell.
 */
export function reportFailure(ctx: IpamContext, report: IpamReport): void {
  if (!ctx.report) return;
  try {
    ctx.report(report);
  } catch {
    // Dropped, as the contract of IpamReporter says: see above.
  }
}
