import { afterEach, describe, expect, it, vi } from 'vitest';
import { retryUntilDone } from './retry-until-done.js';

/** An attempt that fails `failures` times, then succeeds; counts its calls. */
function failingTimes(failures: number): { attempt: () => Promise<boolean>; calls: () => number } {
  let calls = 0;
  return { attempt: async () => ++calls > failures, calls: () => calls };
}

describe('retryUntilDone', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('stops at the first attempt that succeeds', async () => {
    const a = failingTimes(2);
    await expect(retryUntilDone(a.attempt, { attempts: 100, backoffMs: 0 })).resolves.toBe(true);
    expect(a.calls()).toBe(3);
  });

  it('gives up after `attempts` attempts in all', async () => {
    const a = failingTimes(Infinity);
    await expect(retryUntilDone(a.attempt, { attempts: 100, backoffMs: 0 })).resolves.toBe(false);
    expect(a.calls()).toBe(100);
  });

  it('waits backoffMs between two attempts', async () => {
    vi.useFakeTimers();
    const a = failingTimes(1);
    const done = retryUntilDone(a.attempt, { attempts: 3, backoffMs: 250 });
    await vi.advanceTimersByTimeAsync(249);
    expect(a.calls()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(a.calls()).toBe(2);
    await expect(done).resolves.toBe(true);
  });

  it('ends with the error of an attempt that throws, without retrying it', async () => {
    let calls = 0;
    const attempt = async (): Promise<boolean> => {
      calls++;
      throw new Error('suite bug');
    };
    await expect(retryUntilDone(attempt, { attempts: 100, backoffMs: 0 })).rejects.toThrow(
      'suite bug',
    );
    expect(calls).toBe(1);
  });
});
