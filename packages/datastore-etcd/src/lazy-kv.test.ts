import { describe, expect, it } from 'vitest';
import type { EtcdKv, KvRangeResponse, KvWatchHandlers } from './etcd-kv.js';
import { createLazyKv } from './lazy-kv.js';

const HEADER = { cluster_id: '1', member_id: '1', revision: '3', raft_term: '1' };
const RANGE: KvRangeResponse = { header: HEADER, kvs: [], more: false, count: '0' };

/** A transport that records what happened to it. */
function fakeKv(log: string[]): EtcdKv {
  return {
    range: async () => RANGE,
    txn: async () => ({ header: HEADER, succeeded: true, responses: [] }),
    put: async () => ({ header: HEADER }),
    watch: () => {
      log.push('watch');
      return { cancel: () => log.push('cancel') };
    },
    close: () => log.push('close'),
  };
}

const handlers = (log: string[]): KvWatchHandlers => ({
  onResponse: () => log.push('response'),
  onDisconnected: () => log.push('disconnected'),
  onCanceled: (e) => log.push(`canceled: ${(e as Error).message}`),
});

describe('createLazyKv', () => {
  it('loads nothing until the first call, then loads once for every call', async () => {
    const log: string[] = [];
    let loads = 0;
    const kv = createLazyKv(async () => {
      loads++;
      return fakeKv(log);
    });
    expect(loads).toBe(0);
    await Promise.all([
      kv.range({ key: Buffer.from('/a') }),
      kv.put({ key: Buffer.from('/a'), value: Buffer.from('v') }),
    ]);
    await kv.txn({});
    expect(loads).toBe(1);
    kv.close();
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(['close']);
  });

  it('tries again after a failed load; the failure fails the call, or cancels the watch', async () => {
    const log: string[] = [];
    let loads = 0;
    const kv = createLazyKv(async () => {
      if (++loads === 1) throw new Error('no grpc');
      return fakeKv(log);
    });
    kv.watch({ key: Buffer.from('/a'), start_revision: '1' }, handlers(log));
    await expect(kv.range({ key: Buffer.from('/a') })).rejects.toThrow('no grpc'); // the same load
    expect(log).toEqual(['canceled: no grpc']);
    await expect(kv.range({ key: Buffer.from('/a') })).resolves.toEqual(RANGE);
    expect(loads).toBe(2);
  });

  it('does not start a watch canceled while loading, and closes what loads after close()', async () => {
    const log: string[] = [];
    let release: (() => void) | undefined;
    const kv = createLazyKv(async () => {
      await new Promise<void>((resolve) => (release = resolve));
      return fakeKv(log);
    });
    const watch = kv.watch({ key: Buffer.from('/a'), start_revision: '1' }, handlers(log));
    watch.cancel();
    kv.close();
    release?.();
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(['close']);
  });
});
