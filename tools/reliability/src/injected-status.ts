import type { ServerResponse } from 'node:http';

/** What the fault proxy answers instead of forwarding, while a storm is on. */
export type InjectedStatus = 409 | 429 | 500;

/** A storm: a fraction `rate` of requests answered with one of `statuses`. */
export interface Storm {
  readonly statuses: readonly InjectedStatus[];
  readonly rate: number;
}

const REASONS: Record<InjectedStatus, string> = {
  409: 'Conflict',
  429: 'TooManyRequests',
  500: 'InternalError',
};

/**
 * The status to answer a request with instead of forwarding it, or undefined to forward it: with
 * chance `storm.rate`, one of the storm's statuses picked by `random` (409 only for a write, as
 * the API server would answer).
 */
export function pickInjectedStatus(
  storm: Storm | undefined,
  write: boolean,
  random: () => number,
): InjectedStatus | undefined {
  if (!storm || random() >= storm.rate) return undefined;
  const choices = storm.statuses.filter((s) => s !== 409 || write);
  return choices[Math.floor(random() * choices.length)];
}

/** Answers with `status` and a Kubernetes Status body, with `Retry-After: 1` on a 429. */
export function writeInjectedStatus(res: ServerResponse, status: InjectedStatus): void {
  res.writeHead(status, {
    'content-type': 'application/json',
    ...(status === 429 && { 'retry-after': '1' }),
  });
  res.end(
    JSON.stringify({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      reason: REASONS[status],
      code: status,
      message: `injected by the reliability suite's proxy (${status})`,
    }),
  );
}
