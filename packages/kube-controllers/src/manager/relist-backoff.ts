import type { IBackoff, IBackoffFactory, IRetryBackoffContext } from 'cockatiel';
import { ExponentialBackoff, noJitterGenerator } from 'cockatiel';

/** Options of {@link createRelistBackoff}. */
export interface RelistBackoffOptions {
  readonly baseMs: number;
  readonly maxMs: number;
  /** Failures retried at once and not counted (a watch expired: list again now). */
  readonly isImmediate: (error: Error) => boolean;
  /** How many watches have been established so far: a failure after a new one starts at `baseMs`. */
  readonly establishedCount: () => number;
}

type Context = IRetryBackoffContext<unknown>;

/**
 * The backoff of a list/watch retry policy (cockatiel's `retry`), as an informer's: `baseMs`
 * doubling per consecutive failure up to `maxMs` (cockatiel's `ExponentialBackoff`, no jitter),
 * counted from the last established watch; an immediate failure waits 0 ms and does not count.
 */
export function createRelistBackoff(options: RelistBackoffOptions): IBackoffFactory<Context> {
  const exponential = new ExponentialBackoff({
    generator: noJitterGenerator,
    initialDelay: options.baseMs,
    maxDelay: options.maxMs,
  });
  const step = (
    chain: IBackoff<unknown> | undefined,
    epoch: number,
    duration: number,
  ): IBackoff<Context> => ({
    duration,
    next(context) {
      if ('error' in context.result && options.isImmediate(context.result.error))
        return step(chain, epoch, 0);
      const now = options.establishedCount();
      const next =
        chain !== undefined && epoch === now ? chain.next(undefined) : exponential.next();
      return step(next, now, next.duration);
    },
  });
  return { next: (context) => step(undefined, options.establishedCount(), 0).next(context) };
}
