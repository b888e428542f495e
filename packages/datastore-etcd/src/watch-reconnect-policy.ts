import { ExponentialBackoff, handleType, noJitterGenerator, retry } from 'cockatiel';
import type { IBackoff, IBackoffFactory, IRetryBackoffContext, RetryPolicy } from 'cockatiel';

/** A watch stream lost before etcd ended it (connection, member down): the watch resumes. */
export class WatchLostError extends Error {
  /** Whether the lost stream delivered anything (an event or a progress notification). */
  readonly progressed: boolean;
  constructor(progressed: boolean, options?: { readonly cause?: unknown }) {
    super('the watch stream was lost', options);
    this.name = 'WatchLostError';
    this.progressed = progressed;
  }
}

type Context = IRetryBackoffContext<unknown>;

/** 50 ms doubling to 2 s, no jitter: a watch reconnects soon after a blip, rarely when etcd is down. */
const exponential = new ExponentialBackoff({
  initialDelay: 50,
  maxDelay: 2000,
  generator: noJitterGenerator,
});

const progressed = (context: Context): boolean =>
  'error' in context.result &&
  context.result.error instanceof WatchLostError &&
  context.result.error.progressed;

/** `current`, except that after a stream that delivered something the delays start over. */
const restarting = (current: IBackoff<unknown>): IBackoff<Context> => ({
  duration: current.duration,
  next: (context) => restarting(progressed(context) ? exponential.next() : current.next(context)),
});

/**
 * The delays between a watch's reconnects: 50 ms, doubling to at most 2 s; after a stream that
 * delivered anything before it was lost, 50 ms again.
 */
const watchReconnectBackoff: IBackoffFactory<Context> = {
  next: () => restarting(exponential.next()),
};

/**
 * The reconnect policy of one watch: retries only `WatchLostError` (any other failure ends the
 * watch), without limit, with the delays above; stop it with the execute signal.
 */
export function watchReconnectPolicy(): RetryPolicy {
  return retry(handleType(WatchLostError), {
    maxAttempts: Number.POSITIVE_INFINITY,
    backoff: watchReconnectBackoff,
  });
}
