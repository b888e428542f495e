/** Wall-clock time in milliseconds since the epoch; injected so tests control time. */
export interface Clock {
  now(): number;
}

/** Uniform numbers in [0, 1); injected so tests are repeatable. */
export interface Random {
  next(): number;
}

/** The system clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** `Math.random` as a {@link Random}. */
export const systemRandom: Random = { next: () => Math.random() };

/**
 * A block's initial sequence number: Unix nanoseconds, as Calico seeds it (above 2^53, hence
 * bigint). The sub-millisecond part comes from `random` so two blocks created in the same
 * millisecond still differ.
 */
export function initialSequenceNumber(clock: Clock, random: Random): bigint {
  return (
    BigInt(Math.floor(clock.now())) * 1_000_000n + BigInt(Math.floor(random.next() * 1_000_000))
  );
}
