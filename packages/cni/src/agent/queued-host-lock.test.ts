import { silentLogger } from '../logger.js';
import type { HostLock, HostLockOptions } from '../host-lock.js';
import { describe, expect, it } from 'vitest';
import { queuedHostLock } from './queued-host-lock.js';

/** A fake file lock that records how many callers wait on it at once. */
function fakeLock() {
  let held = false;
  let waiting = 0;
  let maxWaiting = 0;
  const wakeups: (() => void)[] = [];
  const acquire = async (_o: HostLockOptions): Promise<HostLock | undefined> => {
    waiting++;
    maxWaiting = Math.max(maxWaiting, waiting);
    while (held) await new Promise<void>((r) => wakeups.push(r));
    waiting--;
    held = true;
    return {
      release: async () => {
        held = false;
        for (const w of wakeups.splice(0)) w();
      },
    };
  };
  return { acquire, maxWaiting: () => maxWaiting, isHeld: () => held };
}

const opts = (path = '/run/x.lock', timeoutMs = 1000): HostLockOptions => ({
  path,
  timeoutMs,
  log: silentLogger,
});

describe('queuedHostLock', () => {
  it('serves requests in order with one file-lock waiter at a time', async () => {
    const f = fakeLock();
    const take = queuedHostLock(f.acquire);
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const lock = await take(opts());
        order.push(i);
        await Promise.resolve();
        await lock!.release();
      }),
    );
    expect(order).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(f.maxWaiting()).toBe(1);
    expect(f.isHeld()).toBe(false);
  });

  it('keeps lock paths apart', async () => {
    const f = fakeLock();
    const take = queuedHostLock(async (o) =>
      o.path === '/a' ? f.acquire(o) : { release: async () => undefined },
    );
    const a = await take(opts('/a'));
    // Another path is not queued behind /a.
    const b = await take(opts('/b'));
    expect(b).toBeDefined();
    await a!.release();
  });

  it('a request queued longer than its timeout fails TryAgainLater and the queue moves on', async () => {
    const f = fakeLock();
    const take = queuedHostLock(f.acquire);
    const first = await take(opts('/run/x.lock', 1000));
    await expect(take(opts('/run/x.lock', 20))).rejects.toMatchObject({ code: 11 });
    const third = take(opts('/run/x.lock', 1000));
    await first!.release();
    const lock = await third;
    expect(f.isHeld()).toBe(true);
    await lock!.release();
  });

  it('a failed or impossible lock lets the next request go ahead', async () => {
    let calls = 0;
    const take = queuedHostLock(async () => {
      calls++;
      if (calls === 1) throw new Error('boom');
      return undefined; // cannot lock: proceed unlocked
    });
    await expect(take(opts())).rejects.toThrow('boom');
    expect(await take(opts())).toBeUndefined();
    expect(await take(opts())).toBeUndefined();
    expect(calls).toBe(3);
  });
});
