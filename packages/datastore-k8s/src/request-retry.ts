// When a request to the API server is sent again, and after how long: client-go's rules, with a
// backoff where client-go would not retry for want of a Retry-After header. Pure: cockatiel's retry
// policy (retry-attempts.ts) feeds it each attempt's outcome and waits what it says.

/** How hard a request is retried. */
export interface RetryPolicy {
  /** Retries after the first attempt (client-go: 10); 0 sends every request once. */
  readonly maxRetries: number;
  /** Total time one request may spend waiting between attempts; a wait past it is not made. */
  readonly maxWaitMs: number;
  /** First backoff when the server gave no `Retry-After`; doubled per retry. */
  readonly baseBackoffMs: number;
  /** Largest single backoff without `Retry-After`. */
  readonly maxBackoffMs: number;
  /** Largest single wait a `Retry-After` may ask for. */
  readonly maxRetryAfterMs: number;
}

/** The default policy: 10 retries within 10 s of waiting in all. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 10,
  maxWaitMs: 10_000,
  baseBackoffMs: 100,
  maxBackoffMs: 2_000,
  maxRetryAfterMs: 10_000,
};

/** What one attempt got: an HTTP answer, or none (the connection failed or timed out). */
export type AttemptOutcome =
  | { readonly answered: true; readonly status: number; readonly retryAfter?: string }
  | {
      readonly answered: false;
      /** The socket error code (`ECONNRESET`, `ECONNREFUSED`, ...); undefined for our timeout. */
      readonly code?: string;
      /** The request went out on a kept-alive connection (which the server may have closed). */
      readonly reusedSocket?: boolean;
    };

/** Where a request is in its retries. */
export interface RetryState {
  readonly method: string;
  /** Retries made so far (0 after the first attempt). */
  readonly retries: number;
  /** Time waited so far between attempts. */
  readonly waitedMs: number;
}

/** Statuses a read is retried on: the server or a proxy failed or is overloaded or starting. */
const RETRIED_READ_STATUSES = new Set([500, 502, 503, 504]);
/** A connection that failed or was cut: a read is sent again. */
const RETRIED_READ_ERRORS = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

/**
 * Seconds of a `Retry-After` header, in ms; undefined when absent or not a whole number of
 * seconds (client-go reads only that form; an HTTP date is treated as no header).
 */
export function parseRetryAfter(value: string | undefined): number | undefined {
  if (value === undefined || !/^\s*\d+\s*$/.test(value)) return undefined;
  return Number(value.trim()) * 1000;
}

/**
 * Whether the request may be sent again after this outcome, and how long to wait first
 * (undefined: give up, the caller reports the outcome as it is).
 *
 * - 429: the server did not process the request, so every verb is retried, after `Retry-After`
 *   (capped by `maxRetryAfterMs`, plus up to 20% jitter so throttled clients do not return in
 *   step), else after a jittered exponential backoff.
 * - 500/502/503/504 and a connection reset: only reads (GET). A write's outcome is then unknown;
 *   sending it again could apply it twice (a create answered `AlreadyExists` for its own object, an
 *   update's compare-and-swap lost to itself), so it fails as before, saying so.
 * - A refused connection (the API server is down) and our own request timeout: never, as in
 *   client-go: a caller learns at once that the server is not there, and retries as it sees fit.
 * - After `maxRetries` retries, or when the wait would take the total past `maxWaitMs`: give up.
 *   A kept-alive connection the server had closed is resent at once for a read, once.
 */
export function retryDelay(
  state: RetryState,
  o: {
    readonly outcome: AttemptOutcome;
    readonly policy: RetryPolicy;
    readonly random: () => number;
  },
): number | undefined {
  const { outcome, policy, random } = o;
  const read = state.method === 'GET';
  if (state.retries >= policy.maxRetries) return undefined;
  const backoff = (): number => {
    const cap = Math.min(policy.maxBackoffMs, policy.baseBackoffMs * 2 ** state.retries);
    return cap / 2 + (random() * cap) / 2;
  };
  let wait: number | undefined;
  if (outcome.answered) {
    const retryable = outcome.status === 429 || (read && RETRIED_READ_STATUSES.has(outcome.status));
    if (!retryable) return undefined;
    const after = parseRetryAfter(outcome.retryAfter);
    wait =
      after === undefined
        ? backoff()
        : Math.min(after, policy.maxRetryAfterMs) * (1 + 0.2 * random());
  } else if (read && RETRIED_READ_ERRORS.has(outcome.code ?? '')) {
    wait = state.retries === 0 && outcome.reusedSocket ? 0 : backoff();
  } else {
    return undefined;
  }
  return state.waitedMs + wait > policy.maxWaitMs ? undefined : wait;
}
