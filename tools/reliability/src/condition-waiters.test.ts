import { describe, expect, it } from 'vitest';
import { createConditionWaiters } from './condition-waiters.js';

describe('createConditionWaiters', () => {
  it('resolves at once when the condition already holds', async () => {
    await expect(createConditionWaiters().until(() => true)).resolves.toBeUndefined();
  });

  it('resolves on the notify after which the condition holds, not before', async () => {
    const waiters = createConditionWaiters();
    let n = 0;
    let resolved = false;
    const done = waiters
      .until(() => n >= 2)
      .then(() => {
        resolved = true;
      });
    n = 1;
    waiters.notify();
    await Promise.resolve();
    expect(resolved).toBe(false);
    n = 2;
    waiters.notify();
    await done;
    expect(resolved).toBe(true);
  });
});
