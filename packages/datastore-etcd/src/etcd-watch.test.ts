import type { WatchEvent } from '@netledger/ipam-core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { EtcdKv, KvWatchHandlers, KvWatchRequest } from './etcd-kv.js';
import { createEtcdSession } from './etcd-session.js';
import { openEtcdWatch } from './etcd-watch.js';

// The watch's reconnects, driven by its cockatiel retry policy, against a transport whose streams
// the test loses at will (fake timers: the delays are asserted to the millisecond).

const header = (revision: string) => ({
  cluster_id: '1',
  member_id: '1',
  revision,
  raft_term: '1',
});

interface FakeStream {
  readonly req: KvWatchRequest;
  readonly handlers: KvWatchHandlers;
  canceled: boolean;
}

function fakeKv(): { kv: EtcdKv; streams: FakeStream[] } {
  const streams: FakeStream[] = [];
  const kv: EtcdKv = {
    range: () => Promise.resolve({ header: header('7'), kvs: [], more: false, count: '0' }),
    txn: () => Promise.reject(new Error('not used')),
    put: () => Promise.reject(new Error('not used')),
    watch: (req, handlers) => {
      const stream: FakeStream = { req, handlers, canceled: false };
      streams.push(stream);
      return { cancel: () => void (stream.canceled = true) };
    },
    close: () => undefined,
  };
  return { kv, streams };
}

describe('etcd watch reconnects', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const open = (kv: EtcdKv) =>
    openEtcdWatch(
      createEtcdSession({ kv, endpoints: ['http://etcd.invalid:2379'], dialTimeoutMs: 1000 }),
      { kind: 'IPAMHandle' },
      { revision: '5' },
    );

  /** Loses the newest stream and checks the next one opens exactly `delay` ms later. */
  async function loseAndExpectReconnectAfter(streams: FakeStream[], delay: number): Promise<void> {
    const before = streams.length;
    streams.at(-1)!.handlers.onDisconnected(new Error('connection reset'));
    await vi.advanceTimersByTimeAsync(delay - 1);
    expect(streams).toHaveLength(before);
    await vi.advanceTimersByTimeAsync(1);
    expect(streams).toHaveLength(before + 1);
    expect(streams.at(-2)!.canceled).toBe(true);
  }

  it('waits 50 ms, doubling to 2 s, between reconnects of a stream that keeps being lost', async () => {
    const { kv, streams } = fakeKv();
    const watch = open(kv);
    await vi.advanceTimersByTimeAsync(0);
    expect(streams).toHaveLength(1);
    for (const delay of [50, 100, 200, 400, 800, 1600, 2000, 2000]) {
      await loseAndExpectReconnectAfter(streams, delay);
      expect(streams.at(-1)!.req.start_revision).toBe('6');
    }
    watch.close();
  });

  it('starts over at 50 ms after a stream that delivered something, resuming after it', async () => {
    const { kv, streams } = fakeKv();
    const watch = open(kv);
    await vi.advanceTimersByTimeAsync(0);
    await loseAndExpectReconnectAfter(streams, 50);
    await loseAndExpectReconnectAfter(streams, 100);
    // A progress notification: everything up to revision 9 has been sent.
    streams.at(-1)!.handlers.onResponse({ header: header('9'), events: [] });
    await loseAndExpectReconnectAfter(streams, 50);
    expect(streams.at(-1)!.req.start_revision).toBe('10');
    await loseAndExpectReconnectAfter(streams, 100);
    watch.close();
  });

  it('opens no stream again once closed while waiting to reconnect, and iteration ends', async () => {
    const { kv, streams } = fakeKv();
    const watch = open(kv);
    const iterator = watch[Symbol.asyncIterator]();
    const next = iterator.next();
    await vi.advanceTimersByTimeAsync(0);
    streams[0]!.handlers.onDisconnected(new Error('connection reset'));
    watch.close();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(streams).toHaveLength(1);
    await expect(next).resolves.toEqual({ done: true, value: undefined });
  });

  it('delivers the events of a resumed stream once, after the revision already delivered', async () => {
    const { kv, streams } = fakeKv();
    const watch = open(kv);
    const iterator = watch[Symbol.asyncIterator]();
    await vi.advanceTimersByTimeAsync(0);
    const put = (revision: string) => ({
      type: 'Put' as const,
      kv: {
        key: Buffer.from('/calico/ipam/v2/handle/h1'),
        create_revision: '6',
        mod_revision: revision,
        version: revision === '6' ? '1' : '2',
        value: Buffer.from('{"handleID":"h1","block":{}}'),
        lease: '0',
      },
    });
    streams[0]!.handlers.onResponse({ header: header('6'), events: [put('6')] });
    await loseAndExpectReconnectAfter(streams, 50);
    expect(streams[1]!.req.start_revision).toBe('7');
    // A replay of revision 6 is not delivered again.
    streams[1]!.handlers.onResponse({ header: header('7'), events: [put('6'), put('7')] });
    const seen: WatchEvent[] = [];
    for (let i = 0; i < 2; i++) seen.push((await iterator.next()).value as WatchEvent);
    expect(seen.map((e) => [e.type, e.revision])).toEqual([
      ['added', '6'],
      ['modified', '7'],
    ]);
    watch.close();
  });
});
