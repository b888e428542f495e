import { describe, expect, it } from 'vitest';
import { createReholdBackoff } from './rehold-backoff.js';

describe('createReholdBackoff: cockatiel exponential backoff for a holder that comes back', () => {
  it('doubles from 1 ms to at most 4 ms, without jitter at random() = 0.5', () => {
    const backoff = createReholdBackoff(() => 0.5);
    expect([1, 2, 3, 4, 5].map(() => backoff.next())).toEqual([1, 2, 4, 4, 4]);
  });

  it('jitters each wait to half to one and a half times it', () => {
    expect(createReholdBackoff(() => 0).next()).toBe(0.5);
    const high = createReholdBackoff(() => 0.999);
    high.next();
    expect(high.next()).toBeCloseTo(2 * 1.499);
  });

  it('starts again from 1 ms after a reset', () => {
    const backoff = createReholdBackoff(() => 0.5);
    backoff.next();
    backoff.next();
    backoff.reset();
    expect(backoff.next()).toBe(1);
  });
});
