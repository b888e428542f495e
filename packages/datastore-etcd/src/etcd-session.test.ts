import { IpamError } from '@netledger/ipam-core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { EtcdKv } from './etcd-kv.js';
import { EtcdKvError } from './etcd-kv-error.js';
import { createEtcdSession } from './etcd-session.js';
import type { EtcdSession } from './etcd-session.js';

// The session's one retry policy (cockatiel), with fake timers: which failures it retries, the
// delays between attempts, where it gives up, and that closing the session stops it.

const unusedKv: EtcdKv = {
  range: () => Promise.reject(new Error('not used')),
  txn: () => Promise.reject(new Error('not used')),
  put: () => Promise.reject(new Error('not used')),
  watch: () => ({ cancel: () => undefined }),
  close: () => undefined,
};

const lost = (): EtcdKvError =>
  new EtcdKvError('14 UNAVAILABLE: No connection established', { errorClass: 'retry' });

/** An attempt that fails with `error` each time, recording when it ran (fake time). */
function failing(error: () => Error): { attempt: () => Promise<never>; at: number[] } {
  const at: number[] = [];
  return {
    at,
    attempt: () => {
      at.push(Date.now());
      return Promise.reject(error());
    },
  };
}

describe('EtcdSession.retrying', () => {
  let session: EtcdSession;
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
    session = createEtcdSession({
      kv: unusedKv,
      endpoints: ['http://etcd.invalid:2379'],
      dialTimeoutMs: 1000,
    });
  });
  afterEach(() => {
    session.close();
    vi.useRealTimers();
  });

  it('retries a connection failure after 25 ms doubling to 500 ms, and fails Unavailable at the dial timeout', async () => {
    const { attempt, at } = failing(lost);
    const onRetry = vi.fn();
    const outcome = session
      .retrying(attempt, { path: '/calico/x', onRetry })
      .catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(5000);
    // 0, 25, 75, 175, 375, 775: the next (500 ms later) would start past the 1000 ms deadline.
    expect(at).toEqual([0, 25, 75, 175, 375, 775]);
    expect(onRetry).toHaveBeenCalledTimes(5);
    const e = (await outcome) as IpamError;
    expect(e).toBeInstanceOf(IpamError);
    expect(e).toMatchObject({ code: 'Unavailable' });
    expect(e.message).toMatch(/^etcd at http:\/\/etcd\.invalid:2379 unreachable: /);
  });

  it('returns what a later attempt returns', async () => {
    let n = 0;
    const outcome = session.retrying(() => (++n < 3 ? Promise.reject(lost()) : Promise.resolve(n)));
    await vi.advanceTimersByTimeAsync(100);
    await expect(outcome).resolves.toBe(3);
  });

  it.each([
    ['an IpamError', () => new IpamError('UpdateConflict', 'update conflict: x'), 'UpdateConflict'],
    [
      'a refusal',
      () => new EtcdKvError('etcdserver: permission denied', { errorClass: 'rejected' }),
      'PermissionDenied',
    ],
  ])('does not retry %s', async (_what, error, code) => {
    const { attempt, at } = failing(error);
    const outcome = session.retrying(attempt).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(1000);
    expect(at).toEqual([0]);
    expect(await outcome).toMatchObject({ code });
  });

  it('stops retrying once the session is closed', async () => {
    const { attempt, at } = failing(lost);
    const outcome = session.retrying(attempt).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(30);
    expect(at).toEqual([0, 25]);
    session.close();
    await vi.advanceTimersByTimeAsync(5000);
    expect(at).toEqual([0, 25]);
    const e = (await outcome) as IpamError;
    expect(e).toMatchObject({ code: 'Unavailable', message: 'datastore is closed' });
  });
});
