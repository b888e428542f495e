import { describe, expect, it } from 'vitest';
import { createItemBackoff } from './item-backoff.js';

describe('createItemBackoff', () => {
  it('doubles the delay per failure up to the bound, per item, and forgets on success', () => {
    const b = createItemBackoff({ baseMs: 100, maxMs: 350 });
    expect([b.failed('x', 0), b.failed('x', 0), b.failed('x', 0), b.failed('x', 0)]).toEqual([
      100, 200, 350, 350,
    ]);
    expect(b.isBackedOff('x', 349)).toBe(true);
    expect(b.isBackedOff('x', 350)).toBe(false);
    expect(b.isBackedOff('y', 0)).toBe(false);
    b.failed('y', 10);
    expect(b.nextRetryMs()).toBe(110);
    b.succeeded('x');
    b.prune((item) => item !== 'y');
    expect(b.size).toBe(0);
    expect(b.nextRetryMs()).toBeUndefined();
  });
});
