import { describe, expect, it } from 'vitest';
import { createTokenBucket } from './token-bucket.js';

function fakeClock() {
  let now = 0;
  const sleeps: number[] = [];
  return {
    sleeps,
    clock: {
      now: () => now,
      sleep: async (ms: number) => {
        sleeps.push(ms);
        now += ms;
      },
    },
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('token bucket', () => {
  it('lets a burst through at once, then paces at qps', async () => {
    const f = fakeClock();
    const bucket = createTokenBucket({ qps: 10, burst: 3 }, f.clock);
    for (let i = 0; i < 3; i++) await bucket.take();
    expect(f.sleeps).toEqual([]);
    await bucket.take();
    expect(f.sleeps).toEqual([100]);
  });

  it('refills over time, up to the burst', async () => {
    const f = fakeClock();
    const bucket = createTokenBucket({ qps: 10, burst: 2 }, f.clock);
    await bucket.take();
    await bucket.take();
    f.advance(10_000);
    await bucket.take();
    await bucket.take();
    expect(f.sleeps).toEqual([]);
    await bucket.take();
    expect(f.sleeps).toHaveLength(1);
  });

  it('queues concurrent callers one token interval apart', async () => {
    const f = fakeClock();
    const sleeps: number[] = [];
    const bucket = createTokenBucket(
      { qps: 5, burst: 1 },
      { now: () => 0, sleep: async (ms) => void sleeps.push(ms) },
    );
    await Promise.all([bucket.take(), bucket.take(), bucket.take()]);
    expect(sleeps).toEqual([200, 400]);
    expect(f.sleeps).toEqual([]);
  });
});
