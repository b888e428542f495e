// Drives one request's attempts with cockatiel: after each attempt the pure client-go policy
// (request-retry.ts) says whether to send it again and after how long; cockatiel's retry policy
// runs the loop and the waits, and retries no more once `signal` aborts.
import type { IRetryBackoffContext } from 'cockatiel';
import { DelegateBackoff, handleWhenResult, retry } from 'cockatiel';
import type { AttemptOutcome, RetryPolicy } from './request-retry.js';
import { retryDelay } from './request-retry.js';

/** Where a request is in its retries when an attempt starts. */
export interface AttemptState {
  /** Retries made before this attempt (0 for the first). */
  readonly retries: number;
  /** Time waited so far between attempts. */
  readonly waitedMs: number;
}

/** What one attempt got, and what it yields to the caller. */
export interface Attempt<T> {
  readonly outcome: AttemptOutcome;
  readonly result: T;
}

/** The last attempt made, with the wait the policy asked for after it (undefined: none). */
export interface LastAttempt<T> extends Attempt<T>, AttemptState {
  readonly wait: number | undefined;
}

const waitOf = (ctx: IRetryBackoffContext<unknown>): number =>
  'value' in ctx.result ? ((ctx.result.value as LastAttempt<unknown>).wait ?? 0) : 0;

/**
 * Runs `attempt` until the policy gives up, waiting between attempts as it says. Resolves with
 * the last attempt; its `wait` is defined only when `signal` aborted a retry that was due. An
 * error thrown by `attempt` is not retried: it rejects at once.
 */
export function retryAttempts<T>(
  attempt: (state: AttemptState) => Promise<Attempt<T>>,
  o: {
    readonly method: string;
    readonly policy: RetryPolicy;
    readonly random: () => number;
    readonly signal: AbortSignal;
  },
): Promise<LastAttempt<T>> {
  let waitedMs = 0;
  const policy = retry(
    handleWhenResult((r) => (r as LastAttempt<T>).wait !== undefined),
    { maxAttempts: o.policy.maxRetries, backoff: new DelegateBackoff(waitOf) },
  );
  return policy.execute(async ({ attempt: retries }) => {
    const state = { retries, waitedMs };
    const done = await attempt(state);
    const wait = retryDelay(
      { method: o.method, ...state },
      { outcome: done.outcome, policy: o.policy, random: o.random },
    );
    if (wait !== undefined) waitedMs += wait;
    return { ...done, ...state, wait };
  }, o.signal);
}
