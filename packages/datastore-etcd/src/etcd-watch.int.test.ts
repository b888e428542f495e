import type { Datastore, DatastoreKey, WatchEvent } from '@netledger/ipam-core';
import { IpamError } from '@netledger/ipam-core';
import { startEtcd } from '@netledger/testkit';
import type { EtcdFixture } from '@netledger/testkit';
import { Etcd3 } from 'etcd3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ETCD_TRANSPORTS } from '../test/wiped-etcd-target.js';
import { createEtcdDatastore } from './create-etcd-datastore.js';

const keyOf = (e: WatchEvent): DatastoreKey => (e.type === 'deleted' ? e.key : e.kv.key);

async function take(events: AsyncIterable<WatchEvent>, n: number): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  for await (const e of events) {
    out.push(e);
    if (out.length === n) break;
  }
  return out;
}

let etcd: EtcdFixture;
beforeAll(async () => {
  etcd = await startEtcd();
});
afterAll(async () => {
  await etcd.stop();
});

// Once per transport on one etcd; each run names its handles after its transport.
describe.each(ETCD_TRANSPORTS)('etcd watch over %s', (transport) => {
  let ds: Datastore;
  beforeAll(() => {
    ds = createEtcdDatastore({ endpoints: etcd.endpoints, dialTimeoutMs: 20_000, transport });
  });
  afterAll(async () => {
    await ds.close();
  });
  const handleKey = (name: string): DatastoreKey<'IPAMHandle'> => ({
    kind: 'IPAMHandle',
    handleId: `${transport}-${name}`,
  });
  const handle = (name: string) => ({
    key: handleKey(name),
    value: { handleId: `${transport}-${name}`, block: {}, deleted: false },
  });

  it('resumes after etcd restarts: every change strictly after the start revision, once, in order', async () => {
    await ds.create(handle('before'));
    const { revision } = await ds.list({ kind: 'IPAMHandle' });
    const stream = ds.watch({ kind: 'IPAMHandle' }, { revision });
    const iterator = stream[Symbol.asyncIterator]();
    const a = await ds.create(handle('a'));
    const first = await iterator.next(); // the watch has delivered `a` before the outage
    await etcd.restart(0);
    // Written while the watch is still reconnecting: they must come from etcd's history.
    await ds.update(a);
    await ds.create(handle('b'));
    await ds.delete(handleKey('a'));
    const events = [first.value as WatchEvent];
    while (events.length < 4) {
      const next = await iterator.next();
      if (next.done) break;
      events.push(next.value);
    }
    stream.close();
    expect(events.map((e) => [e.type, keyOf(e)])).toEqual([
      ['added', handleKey('a')],
      ['modified', handleKey('a')],
      ['added', handleKey('b')],
      ['deleted', handleKey('a')],
    ]);
    const revisions = events.map((e) => Number(e.revision));
    expect(revisions[0]).toBeGreaterThan(Number(revision));
    expect(revisions).toEqual([...revisions].sort((x, y) => x - y));
    expect(new Set(revisions).size).toBe(4);
  });

  it('throws WatchExpired when the start revision has been compacted', async () => {
    const first = await ds.create(handle('c1'));
    await ds.create(handle('c2'));
    const last = await ds.create(handle('c3'));
    const raw = new Etcd3({ hosts: etcd.endpoints });
    try {
      await raw.kv.compact({ revision: last.revision, physical: true });
    } finally {
      raw.close();
    }
    const stream = ds.watch(
      { kind: 'IPAMHandle' },
      { revision: String(Number(first.revision) - 1) },
    );
    const err = await take(stream, 1).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IpamError);
    expect(err).toMatchObject({ code: 'WatchExpired' });
    // From the compaction revision on, history is there again.
    const ok = ds.watch({ kind: 'IPAMHandle' }, { revision: last.revision });
    const seen = take(ok, 1);
    await ds.create(handle('c4'));
    expect(await seen).toMatchObject([{ type: 'added', kv: { key: handleKey('c4') } }]);
    ok.close();
  });

  it('watches from now when no revision is given, and ends on abort', async () => {
    await ds.create(handle('before-now'));
    const controller = new AbortController();
    const stream = ds.watch({ kind: 'IPAMHandle' }, { signal: controller.signal });
    await stream.established; // "now" is fixed: what follows must be seen, what came before not
    const seen = take(stream, 1);
    await ds.create(handle('now'));
    expect(await seen).toMatchObject([{ type: 'added', kv: { key: handleKey('now') } }]);
    controller.abort();
    const rest: WatchEvent[] = [];
    for await (const e of stream) rest.push(e);
    expect(rest).toEqual([]);
  });
});
