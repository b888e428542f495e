import { describe, expect, it } from 'vitest';
import type { AttemptState } from './retry-attempts.js';
import { retryAttempts } from './retry-attempts.js';
import type { AttemptOutcome } from './request-retry.js';
import { DEFAULT_RETRY_POLICY } from './request-retry.js';

const throttled: AttemptOutcome = { answered: true, status: 429, retryAfter: '0' };
const failed: AttemptOutcome = { answered: true, status: 500 };
const ok: AttemptOutcome = { answered: true, status: 200 };

/** Runs `outcomes` (the last repeats) through cockatiel; records each attempt's state. */
async function run(
  outcomes: readonly AttemptOutcome[],
  o: { maxRetries?: number; method?: string; abortAt?: number } = {},
) {
  const states: AttemptState[] = [];
  const abort = new AbortController();
  const last = await retryAttempts(
    async (state) => {
      states.push(state);
      if (states.length === o.abortAt) abort.abort();
      const outcome = outcomes[Math.min(states.length, outcomes.length) - 1]!;
      return { outcome, result: states.length };
    },
    {
      method: o.method ?? 'GET',
      policy: { ...DEFAULT_RETRY_POLICY, maxRetries: o.maxRetries ?? 10 },
      random: () => 0,
      signal: abort.signal,
    },
  );
  return { last, states };
}

describe('retryAttempts: cockatiel runs the attempts the client-go policy allows', () => {
  it('attempts maxRetries + 1 times, then resolves with the last attempt', async () => {
    const { last, states } = await run([throttled], { maxRetries: 3 });
    expect(states.map((s) => s.retries)).toEqual([0, 1, 2, 3]);
    expect(last).toMatchObject({ result: 4, retries: 3, wait: undefined });
  });

  it('waits the backoff the policy gives between attempts, counting the time waited', async () => {
    const { last, states } = await run([failed, failed, failed, ok]);
    // random() = 0: half of 100, 200, 400 ms.
    expect(states.map((s) => s.waitedMs)).toEqual([0, 50, 150, 350]);
    expect(last).toMatchObject({ result: 4, outcome: ok, wait: undefined });
  });

  it('sends a write answered 500 once', async () => {
    const { last, states } = await run([failed, ok], { method: 'PUT' });
    expect(states).toHaveLength(1);
    expect(last).toMatchObject({ result: 1, wait: undefined });
  });

  it('retries no more once the signal aborts, reporting the wait that was due', async () => {
    const { last, states } = await run([throttled], { abortAt: 2 });
    expect(states).toHaveLength(2);
    expect(last).toMatchObject({ result: 2, retries: 1, wait: 0 });
  });

  it('rejects at once with an error the attempt throws', async () => {
    let attempts = 0;
    const failing = retryAttempts(
      async () => {
        attempts++;
        throw new Error('limiter closed');
      },
      {
        method: 'GET',
        policy: DEFAULT_RETRY_POLICY,
        random: () => 0,
        signal: new AbortController().signal,
      },
    );
    await expect(failing).rejects.toThrow('limiter closed');
    expect(attempts).toBe(1);
  });
});
