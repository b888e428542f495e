// The backoff of a waiter woken by the release of a holder that comes back (a process writing in
// a loop): 1 ms doubling to 4 ms, jittered to half to one and a half times that, from cockatiel's
// exponential backoff.
import type { GeneratorFn, IBackoff } from 'cockatiel';
import { ExponentialBackoff, noJitterGenerator } from 'cockatiel';

/** The longest backoff after the release of a holder that comes back (before jitter). */
const MAX_BACKOFF_MS = 4;

/** A backoff that grows while the same kind of holder keeps coming back. */
export interface ReholdBackoff {
  /** The next wait, in ms: 1, 2, 4, 4, ... ms times a jitter in [0.5, 1.5). */
  readonly next: () => number;
  /** Starts again from 1 ms (a one-shot holder released the lock). */
  readonly reset: () => void;
}

/** A {@link ReholdBackoff}; `random` (in [0, 1)) jitters it. */
export function createReholdBackoff(random: () => number = Math.random): ReholdBackoff {
  const jittered: GeneratorFn<number> = (attempts, options) => {
    const [delay, next] = noJitterGenerator(attempts, options);
    return [delay * (0.5 + random()), next];
  };
  const factory = new ExponentialBackoff({
    generator: jittered,
    initialDelay: 1,
    maxDelay: MAX_BACKOFF_MS,
  });
  let current: IBackoff<unknown> | undefined;
  return {
    next: () => {
      current = current ? current.next(undefined) : factory.next();
      return current.duration;
    },
    reset: () => {
      current = undefined;
    },
  };
}
