import { describe, expect, it } from 'vitest';
import { IpamError, createMemoryDatastore } from '@netledger/ipam-core';
import type { Datastore, WatchEvent, WatchStream } from '@netledger/ipam-core';
import type { StoreChange } from '../manager/store-reflector.js';
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
});
