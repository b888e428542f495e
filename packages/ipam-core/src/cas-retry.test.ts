import { describe, expect, it } from 'vitest';
import { withCasRetry } from './cas-retry.js';
import { IpamError } from './errors.js';

describe('withCasRetry', () => {
  it('retries transient errors until the attempt succeeds', async () => {
    let calls = 0;
    const result = await withCasRetry(async () => {
      calls++;
      if (calls < 3) throw new IpamError('UpdateConflict', 'conflict');
      return 'done';
    });
    expect(result).toBe('done');
    expect(calls).toBe(3);
  });

  it('surfaces a non-transient error at once', async () => {
    let calls = 0;
    const p = withCasRetry(async () => {
      calls++;
      throw new IpamError('BadSequenceNumber', 'stale');
    });
    await expect(p).rejects.toMatchObject({ code: 'BadSequenceNumber' });
    expect(calls).toBe(1);
  });

  it('gives up with MaxRetries after the attempt budget, never leaking the transient error', async () => {
    let calls = 0;
    const p = withCasRetry(
      async () => {
        calls++;
        throw new IpamError('UpdateConflict', 'conflict');
      },
      { attempts: 5 },
    );
    await expect(p).rejects.toMatchObject({
      code: 'MaxRetries',
      message: expect.stringContaining('Max retries hit'),
    });
    expect(calls).toBe(5);
  });

  it('lets plain errors through untouched', async () => {
    await expect(
      withCasRetry(async () => Promise.reject(new TypeError('boom'))),
    ).rejects.toBeInstanceOf(TypeError);
  });
});
