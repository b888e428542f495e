/** Time and waiting, injected so the limiter is tested without real time. */
export interface LimiterClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

/** A client-side request limiter (client-go's token bucket: `qps` sustained, `burst` at once). */
export interface TokenBucket {
  /** Resolves when the caller may send one request; callers are served in arrival order. */
  take(): Promise<void>;
}

const realClock: LimiterClock = {
  now: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * A token bucket holding up to `burst` tokens, refilled at `qps` per second, starting full. A
 * caller that finds it empty reserves the next token and waits for it, so waits queue up fairly.
 */
export function createTokenBucket(
  opts: { qps: number; burst: number },
  clock: LimiterClock = realClock,
): TokenBucket {
  const { qps, burst } = opts;
  let tokens = burst;
  let last = clock.now();
  return {
    async take() {
      const now = clock.now();
      tokens = Math.min(burst, tokens + ((now - last) * qps) / 1000);
      last = now;
      tokens -= 1;
      if (tokens >= 0) return;
      await clock.sleep((-tokens * 1000) / qps);
    },
  };
}
