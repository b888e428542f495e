import { describe, expect, it } from 'vitest';
import { IpamError, createMemoryDatastore } from '@netledger/ipam-core';
import type { Datastore, WatchEvent, WatchStream } from '@netledger/ipam-core';
import type { StoreChange } from '../manager/store-reflector.js';
import type { LogFields, Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import { startStoreReflector } from './store-reflector.js';

const handle = (id: string) => ({
  key: { kind: 'IPAMHandle' as const, handleId: id },
  value: { handleId: id, block: {}, deleted: false },
});
const ids = (changes: readonly StoreChange[]) =>
  changes.map((c) =>
    c.type === 'put' ? `put ${JSON.stringify(c.kv.key)}` : `delete ${JSON.stringify(c.key)}`,
  );

/** Waits until `changes` holds `n` entries, re-checking whenever the reflector delivers. */
function collector() {
  const changes: StoreChange[] = [];
  let wake: (() => void) | undefined;
  return {
    changes,
    onChanges: (cs: readonly StoreChange[]) => {
      changes.push(...cs);
      wake?.();
    },
    async until(n: number) {
      while (changes.length < n) await new Promise<void>((r) => (wake = r));
    },
  };
}

describe('startStoreReflector', () => {
  it('lists, then follows the watch', async () => {
    const ds = createMemoryDatastore();
    await ds.create(handle('a'));
    const c = collector();
    const r = startStoreReflector({
      datastore: ds,
      kinds: ['IPAMHandle', 'IPPool'],
      onChanges: c.onChanges,
      logger: silentLogger,
    });
    await r.synced;
    expect(ids(c.changes)).toEqual(['put {"kind":"IPAMHandle","handleId":"a"}']);
    await ds.create(handle('b'));
    await ds.delete({ kind: 'IPAMHandle', handleId: 'a' });
    await c.until(3);
    expect(ids(c.changes).slice(1)).toEqual([
      'put {"kind":"IPAMHandle","handleId":"b"}',
      'delete {"kind":"IPAMHandle","handleId":"a"}',
    ]);
    await r.close();
    await ds.close();
  });

  it('lists again when the watch expires, delivering the deletes it missed', async () => {
    const inner = createMemoryDatastore();
    await inner.create(handle('a'));
    await inner.create(handle('b'));
    let expire!: () => void;
    let calls = 0;
    // The first watch never delivers anything and then fails as compacted.
    const ds: Datastore = {
      ...inner,
      watch(options, watchOptions): WatchStream {
        if (calls++ > 0) return inner.watch(options, watchOptions);
        const failed = new Promise<never>(
          (_, reject) => (expire = () => reject(new IpamError('WatchExpired', 'compacted'))),
        );
        failed.catch(() => undefined);
        return {
          established: Promise.resolve(),
          close: () => undefined,
          [Symbol.asyncIterator](): AsyncIterator<WatchEvent> {
            return { next: () => failed };
          },
        };
      },
    };
    const c = collector();
    const r = startStoreReflector({
      datastore: ds,
      kinds: ['IPAMHandle'],
      onChanges: c.onChanges,
      logger: silentLogger,
    });
    await r.synced;
    await inner.delete({ kind: 'IPAMHandle', handleId: 'a' });
    await inner.create(handle('c'));
    expire();
    await c.until(5);
    expect(ids(c.changes).slice(2).sort()).toEqual([
      'delete {"kind":"IPAMHandle","handleId":"a"}',
      'put {"kind":"IPAMHandle","handleId":"b"}',
      'put {"kind":"IPAMHandle","handleId":"c"}',
    ]);
    expect(c.changes.length).toBe(5);
    await r.close();
    await inner.close();
  });

  it('retries failed lists with doubling delays (cockatiel), an expired watch uncounted', async () => {
    const inner = createMemoryDatastore();
    await inner.create(handle('a'));
    // Two lists fail, a watch expires before it is established (re-listed at once, not counted),
    // two lists fail, then a watch is established; once it fails, so does one list.
    const plan = ['fail', 'fail', 'expire', 'fail', 'fail', 'ok', 'fail', 'ok'];
    let lists = 0;
    let watchPlan = 'ok';
    let cutWatch: (() => void) | undefined;
    const ds: Datastore = {
      ...inner,
      async list(options) {
        const step = plan[lists++] ?? 'ok';
        if (step === 'fail') throw new IpamError('Unavailable', `list ${lists} refused`);
        watchPlan = step;
        return inner.list(options);
      },
      watch(options, watchOptions): WatchStream {
        if (watchPlan === 'expire') {
          const expired = Promise.reject(new IpamError('WatchExpired', 'compacted'));
          expired.catch(() => undefined);
          return {
            established: expired,
            close: () => undefined,
            [Symbol.asyncIterator]: () => ({ next: () => expired }),
          };
        }
        const stream = inner.watch(options, watchOptions);
        const cut = new Promise<never>(
          (_, reject) => (cutWatch = () => reject(new IpamError('Unavailable', 'watch cut'))),
        );
        cut.catch(() => undefined);
        return {
          established: stream.established,
          close: () => stream.close(),
          [Symbol.asyncIterator]: () => {
            const events = stream[Symbol.asyncIterator]();
            return { next: () => Promise.race([events.next(), cut]) };
          },
        };
      },
    };
    const warnings = capturedWarnings();
    const r = startStoreReflector({
      datastore: ds,
      kinds: ['IPAMHandle'],
      onChanges: () => undefined,
      logger: warnings.logger,
      retryBaseMs: 5,
      retryMaxMs: 15,
    });
    await r.synced;
    expect(warnings.delays).toEqual([5, 10, 15, 15]);
    expect(lists).toBe(6);
    // The established watch fails: counting starts again at the base delay, then the list fails.
    cutWatch?.();
    await warnings.until(6);
    expect(warnings.delays.slice(4)).toEqual([5, 10]);
    await r.close();
    await inner.close();
  });

  it('stops retrying on close, without waiting out the backoff', async () => {
    let lists = 0;
    const inner = createMemoryDatastore();
    const ds: Datastore = {
      ...inner,
      list() {
        lists++;
        return Promise.reject(new IpamError('Unavailable', 'refused'));
      },
    };
    const warnings = capturedWarnings();
    const r = startStoreReflector({
      datastore: ds,
      kinds: ['IPAMHandle'],
      onChanges: () => undefined,
      logger: warnings.logger,
      retryBaseMs: 600_000,
      retryMaxMs: 600_000,
    });
    await warnings.until(1);
    expect(warnings.delays).toEqual([600_000]);
    await r.close();
    expect(lists).toBe(1);
    expect(r.isSynced()).toBe(false);
    await inner.close();
  });
});

/** A logger keeping the `retryInMs` of each warning; `until(n)` waits for the n-th. */
function capturedWarnings() {
  const delays: unknown[] = [];
  let wake: (() => void) | undefined;
  const logger: Logger = {
    log(level, _msg, fields?: LogFields) {
      if (level !== 'warn') return;
      delays.push(fields?.retryInMs);
      wake?.();
    },
  };
  return {
    delays,
    logger,
    async until(n: number) {
      while (delays.length < n) await new Promise<void>((r) => (wake = r));
    },
  };
}
