import { IpamError } from './errors.js';

/** Calico's `datastoreRetries`: how many times one logical write is attempted. */
export const DATASTORE_RETRIES = 100;

/** Options for {@link withCasRetry}. */
export interface CasRetryOptions {
  /** Attempts before giving up with `MaxRetries` (default 100). */
  attempts?: number;
  /** What the operation is about, for the `MaxRetries` message. */
  what?: string;
}

/**
 * Runs `attempt` until it returns without a transient error (a lost compare-and-swap race, a
 * claim conflict, a stale affinity). `attempt` must re-read what it writes on every call.
 *
 * Non-transient errors propagate at once. After `attempts` transient failures it throws
 * `MaxRetries` ("Max retries hit - excessive concurrent IPAM requests"), so transient errors
 * never reach callers.
 */
export async function withCasRetry<T>(
  attempt: (attemptNumber: number) => Promise<T>,
  options: CasRetryOptions = {},
): Promise<T> {
  const attempts = options.attempts ?? DATASTORE_RETRIES;
  let last: unknown;
  for (let i = 0; i < attempts; i++) {
    try {
      return await attempt(i);
    } catch (e) {
      if (!(e instanceof IpamError) || e.kind !== 'transient') throw e;
      last = e;
    }
  }
  const about = options.what ? ` (${options.what})` : '';
  throw new IpamError(
    'MaxRetries',
    `Max retries hit - excessive concurrent IPAM requests${about}`,
    {
      cause: last,
    },
  );
}
