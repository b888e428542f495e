import { link, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createTempDir } from '@netledger/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { watchLockFile } from './change-waiter.js';

let dir: { path: string; remove: () => Promise<void> };
beforeEach(async () => {
  dir = await createTempDir('netledger-waiter-');
});
afterEach(async () => {
  await dir.remove();
});

// Each wait is far longer than the test's timeout: only the change itself can end it.
const FOREVER = 3_600_000;

describe('watchLockFile', () => {
  it('wakes when the lock, a link to its holder prepared file, is released', async () => {
    const prepared = join(dir.path, 'ipam.lock-1-ab');
    const lock = join(dir.path, 'ipam.lock');
    await writeFile(prepared, 'record');
    await link(prepared, lock);
    const waiter = watchLockFile(lock)!;
    try {
      // Nothing changed yet: the wait ends by its timeout.
      expect(await waiter.wait(1)).toBe(false);
      const released = waiter.wait(FOREVER);
      await rm(lock);
      expect(await released).toBe(true);
    } finally {
      waiter.close();
    }
  });

  it('remembers a change, so one made before wait is not missed', async () => {
    const lock = join(dir.path, 'ipam.lock');
    await writeFile(lock, 'record');
    const waiter = watchLockFile(lock)!;
    try {
      await rm(lock);
      expect(await waiter.wait(FOREVER)).toBe(true);
      // The change is still recorded: a second wait returns at once.
      expect(await waiter.wait(FOREVER)).toBe(true);
    } finally {
      waiter.close();
    }
  });

  it('is undefined when there is no lock to watch', () => {
    expect(watchLockFile(join(dir.path, 'ipam.lock'))).toBeUndefined();
  });
});
