import { describe, expect, it } from 'vitest';
import type { AttemptOutcome, RetryPolicy } from './request-retry.js';
import { DEFAULT_RETRY_POLICY, parseRetryAfter, retryDelay } from './request-retry.js';

const policy: RetryPolicy = DEFAULT_RETRY_POLICY;
const mid = (): number => 0.5;

function delay(
  method: string,
  outcome: AttemptOutcome,
  state: { retries?: number; waitedMs?: number; policy?: RetryPolicy; random?: () => number } = {},
): number | undefined {
  return retryDelay(
    { method, retries: state.retries ?? 0, waitedMs: state.waitedMs ?? 0 },
    { outcome, policy: state.policy ?? policy, random: state.random ?? mid },
  );
}

describe('parseRetryAfter', () => {
  it.each([
    ['1', 1000],
    [' 3 ', 3000],
    ['0', 0],
    [undefined, undefined],
    ['-1', undefined],
    ['1.5', undefined],
    ['Wed, 21 Oct 2026 07:28:00 GMT', undefined],
  ])('%j -> %j ms', (header, ms) => {
    expect(parseRetryAfter(header)).toBe(ms);
  });
});

describe('retryDelay', () => {
  it.each(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'])(
    'retries a 429 to %s after Retry-After, with up to 20%% jitter',
    (method) => {
      const at = (random: number): number | undefined =>
        delay(method, { answered: true, status: 429, retryAfter: '1' }, { random: () => random });
      expect(at(0)).toBe(1000);
      expect(at(0.999)).toBeCloseTo(1199.8);
    },
  );

  it('backs off exponentially with jitter when a 429 has no Retry-After', () => {
    const waits = [0, 1, 2, 3, 4, 5].map((retries) =>
      delay('POST', { answered: true, status: 429 }, { retries, random: () => 0.999999 }),
    );
    // Up to base * 2^n, capped at maxBackoffMs.
    expect(waits.map((w) => Math.round(w!))).toEqual([100, 200, 400, 800, 1600, 2000]);
    const low = delay('POST', { answered: true, status: 429 }, { retries: 3, random: () => 0 });
    expect(low).toBe(400);
  });

  it('caps a long Retry-After', () => {
    expect(
      delay('GET', { answered: true, status: 429, retryAfter: '3600' }, { random: () => 0 }),
    ).toBe(policy.maxRetryAfterMs);
  });

  it.each([500, 502, 503, 504])('retries a read answered %i, never a write', (status) => {
    expect(delay('GET', { answered: true, status })).toBeGreaterThan(0);
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      expect(delay(method, { answered: true, status })).toBeUndefined();
    }
  });

  it('honours Retry-After on a read answered 503', () => {
    expect(
      delay('GET', { answered: true, status: 503, retryAfter: '2' }, { random: () => 0 }),
    ).toBe(2000);
  });

  it.each([200, 201, 400, 401, 403, 404, 409, 410, 422, 501])('does not retry %i', (status) => {
    expect(delay('GET', { answered: true, status })).toBeUndefined();
    expect(delay('PUT', { answered: true, status })).toBeUndefined();
  });

  it('resends a read whose connection was reset, never a write', () => {
    for (const code of ['ECONNRESET', 'EPIPE', 'ECONNABORTED']) {
      expect(delay('GET', { answered: false, code })).toBeGreaterThan(0);
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
        expect(delay(method, { answered: false, code })).toBeUndefined();
      }
    }
  });

  it('does not resend a request whose connection was refused: the server is not there', () => {
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
      expect(delay(method, { answered: false, code: 'ECONNREFUSED' })).toBeUndefined();
    }
  });

  it('resends a read on a kept-alive connection the server closed at once, and only once', () => {
    const reset = { answered: false, code: 'ECONNRESET', reusedSocket: true } as const;
    expect(delay('GET', reset)).toBe(0);
    expect(delay('GET', reset, { retries: 1 })).toBeGreaterThan(0);
    expect(delay('PUT', reset)).toBeUndefined();
  });

  it('does not resend a request that timed out', () => {
    expect(delay('GET', { answered: false })).toBeUndefined();
  });

  it('gives up after maxRetries', () => {
    const throttled = { answered: true, status: 429, retryAfter: '0' } as const;
    expect(delay('PUT', throttled, { retries: policy.maxRetries - 1 })).toBe(0);
    expect(delay('PUT', throttled, { retries: policy.maxRetries })).toBeUndefined();
    expect(delay('PUT', throttled, { policy: { ...policy, maxRetries: 0 } })).toBeUndefined();
  });

  it('does not start a wait that would take the total past maxWaitMs', () => {
    const throttled = { answered: true, status: 429, retryAfter: '2' } as const;
    const random = (): number => 0;
    expect(delay('PUT', throttled, { waitedMs: 8000, random })).toBe(2000);
    expect(delay('PUT', throttled, { waitedMs: 8001, random })).toBeUndefined();
  });
});
