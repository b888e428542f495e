import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createTempDir } from '@netledger/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { watchLockName } from './change-waiter.js';

let dir: { path: string; remove: () => Promise<void> };
beforeEach(async () => {
  dir = await createTempDir('netledger-waiter-');
});
afterEach(async () => {
  await dir.remove();
});

// Each wait is far longer than the test's timeout: only the change itself can end it.
const FOREVER = 3_600_000;

describe('watchLockName', () => {
  it('wakes on the creation and the removal of the lock name', async () => {
    const lock = join(dir.path, 'ipam.lock');
    const waiter = watchLockName(lock)!;
    try {
      waiter.arm();
      const created = waiter.wait(FOREVER);
      await writeFile(lock, 'x');
      await created;
      waiter.arm();
      const removed = waiter.wait(FOREVER);
      await rm(lock);
      await removed;
    } finally {
      waiter.close();
    }
  });

  it('remembers a change until the next arm, so one made before wait is not missed', async () => {
    const lock = join(dir.path, 'ipam.lock');
    const waiter = watchLockName(lock)!;
    try {
      waiter.arm();
      await writeFile(lock, 'x');
      await waiter.wait(FOREVER);
      // The change is still recorded: a second wait returns at once.
      await waiter.wait(FOREVER);
    } finally {
      waiter.close();
    }
  });

  it('is undefined where the directory cannot be watched', () => {
    expect(watchLockName(join(dir.path, 'missing', 'ipam.lock'))).toBeUndefined();
  });
});
