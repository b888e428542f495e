import { formatDuration } from '../config/duration.js';

/** What the IPAM GC's behaviour depends on (Calico's `leakGracePeriod` and its hard-coded knobs). */
export interface IpamGcSettings {
  /**
   * Calico's `leakGracePeriod`, ms: how long an allocation whose owner is gone stays a candidate
   * before it is confirmed leaked, how long a block must be seen empty before its affinity is
   * released, how long a handle must hold no address before it is deleted. 0 turns those off
   * (candidates are reported, never released); `null` (unset) does not even mark pods on live
   * nodes. Allocations of deleted nodes are released whatever it is (Calico).
   */
  readonly leakGracePeriodMs: number | null;
  /** At most this many addresses released per pass (a soft guard against a catastrophic leak). */
  readonly maxReleasesPerPass: number;
  /** Events are coalesced: at most one pass per this many ms (Calico's 1 s batch window). */
  readonly batchWindowMs: number;
  /** A full scan at least this often, ms; default half the grace period (5 min without one). */
  readonly fullScanIntervalMs: number;
  /** Per-item retry backoff after a failed write: first delay, doubled per failure up to the max. */
  readonly backoffBaseMs: number;
  readonly backoffMaxMs: number;
  /** Concurrent pod GETs of the final re-validation. */
  readonly revalidateConcurrency: number;
}

/** Calico's defaults: a 15-minute grace period, 10,000 releases per pass, a 1 s batch window. */
export const DEFAULT_LEAK_GRACE_PERIOD_MS = 15 * 60_000;

/** The full-scan interval Calico derives from a grace period (half of it, 5 min without one). */
function fullScanIntervalFor(leakGracePeriodMs: number | null): number {
  return leakGracePeriodMs !== null && leakGracePeriodMs > 0 ? leakGracePeriodMs / 2 : 5 * 60_000;
}

/** Settings with every default applied; `overrides` win. */
export function ipamGcSettings(overrides: Partial<IpamGcSettings> = {}): IpamGcSettings {
  const leakGracePeriodMs =
    overrides.leakGracePeriodMs === undefined
      ? DEFAULT_LEAK_GRACE_PERIOD_MS
      : overrides.leakGracePeriodMs;
  const settings: IpamGcSettings = {
    leakGracePeriodMs,
    maxReleasesPerPass: 10_000,
    batchWindowMs: 1000,
    fullScanIntervalMs: fullScanIntervalFor(leakGracePeriodMs),
    backoffBaseMs: 1000,
    backoffMaxMs: 5 * 60_000,
    revalidateConcurrency: 8,
    ...overrides,
  };
  const problems = validateIpamGcSettings(settings);
  if (problems.length > 0) throw new RangeError(problems.join('; '));
  return settings;
}

/** Every problem of a settings object, as messages naming the setting (empty when valid). */
function validateIpamGcSettings(s: IpamGcSettings): string[] {
  const problems: string[] = [];
  const nonNegative = (name: string, v: number): void => {
    if (!Number.isFinite(v) || v < 0) problems.push(`${name} must be >= 0, got ${v}`);
  };
  if (s.leakGracePeriodMs !== null) nonNegative('leakGracePeriod', s.leakGracePeriodMs);
  if (!Number.isSafeInteger(s.maxReleasesPerPass) || s.maxReleasesPerPass < 1) {
    problems.push(`maxReleasesPerPass must be a whole number >= 1, got ${s.maxReleasesPerPass}`);
  }
  nonNegative('batchWindow', s.batchWindowMs);
  if (!(s.fullScanIntervalMs > 0)) {
    problems.push(`fullScanInterval must be > 0, got ${formatDuration(s.fullScanIntervalMs)}`);
  }
  if (!(s.backoffBaseMs > 0)) problems.push(`backoffBase must be > 0, got ${s.backoffBaseMs}`);
  if (!(s.backoffMaxMs >= s.backoffBaseMs)) {
    problems.push(`backoffMax (${s.backoffMaxMs}) must be >= backoffBase (${s.backoffBaseMs})`);
  }
  if (!Number.isSafeInteger(s.revalidateConcurrency) || s.revalidateConcurrency < 1) {
    problems.push(
      `revalidateConcurrency must be a whole number >= 1, got ${s.revalidateConcurrency}`,
    );
  }
  return problems;
}
