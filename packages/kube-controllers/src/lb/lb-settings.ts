import type { AssignIpsMode } from '@netledger/ipam-core/load-balancer';

/**
 * When the LoadBalancer controller runs: `auto` once an IP pool allows `LoadBalancer` use (until
 * then it only watches pools), `on` from the start, `off` never.
 */
export type LoadBalancerMode = 'auto' | 'on' | 'off';

/** What the LoadBalancer controller's behaviour depends on. */
export interface LoadBalancerSettings {
  /** `auto` or `on` (an `off` controller is not created). */
  readonly mode: Exclude<LoadBalancerMode, 'off'>;
  readonly assignIps: AssignIpsMode;
  /** Handles reconciled at once (assignments themselves are serialised by the IPAM client). */
  readonly concurrency: number;
  /** Per-handle retry backoff after a failed write: first delay, doubled per failure up to the max. */
  readonly backoffBaseMs: number;
  readonly backoffMaxMs: number;
  /** A reconcile running for longer than this makes `/healthz` fail. */
  readonly stuckAfterMs: number;
}

/** Settings with every default applied (auto, AllServices, 8 at once, 1 s to 5 min backoff); `overrides` win. */
export function loadBalancerSettings(
  overrides: Partial<LoadBalancerSettings> = {},
): LoadBalancerSettings {
  const s: LoadBalancerSettings = {
    mode: 'auto',
    assignIps: 'AllServices',
    concurrency: 8,
    backoffBaseMs: 1000,
    backoffMaxMs: 5 * 60_000,
    stuckAfterMs: 5 * 60_000,
    ...overrides,
  };
  const problems: string[] = [];
  if (!Number.isSafeInteger(s.concurrency) || s.concurrency < 1)
    problems.push(`concurrency must be a whole number >= 1, got ${s.concurrency}`);
  if (!(s.backoffBaseMs > 0)) problems.push(`backoffBase must be > 0, got ${s.backoffBaseMs}`);
  if (!(s.backoffMaxMs >= s.backoffBaseMs))
    problems.push(`backoffMax (${s.backoffMaxMs}) must be >= backoffBase (${s.backoffBaseMs})`);
  if (!(s.stuckAfterMs > 0)) problems.push(`stuckAfter must be > 0, got ${s.stuckAfterMs}`);
  if (problems.length > 0) throw new RangeError(problems.join('; '));
  return s;
}
