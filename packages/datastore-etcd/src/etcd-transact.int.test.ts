import type {
  Datastore,
  DatastoreKey,
  KVPair,
  TransactionWrite,
  WatchEvent,
} from '@netledger/ipam-core';
import { IpamError } from '@netledger/ipam-core';
import { BlockBuilder } from '@netledger/testkit';
import { Etcd3 } from 'etcd3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ETCD_TRANSPORTS, createSharedEtcd } from '../test/wiped-etcd-target.js';
import { createEtcdDatastore } from './create-etcd-datastore.js';

// What the contract suite cannot see from outside a store: one etcd revision for the whole
// transaction, one watch response carrying every change, the failing write told apart from
// its neighbours, and errors identical to the single calls'.

const etcd = createSharedEtcd();
let raw: Etcd3;
beforeAll(async () => {
  raw = new Etcd3({ hosts: (await etcd.get()).endpoints });
});
afterAll(async () => {
  raw.close();
  await etcd.stop();
});

const handleKey = (id: string): DatastoreKey<'IPAMHandle'> => ({
  kind: 'IPAMHandle',
  handleId: id,
});
const handle = (id: string, n = 1) => ({
  key: handleKey(id),
  value: { handleId: id, block: { '10.0.0.0/30': n }, deleted: false },
});
const blockKey = (cidr: string): DatastoreKey<'IPAMBlock'> => ({ kind: 'IPAMBlock', cidr });
const storeRevision = async (): Promise<string> =>
  (await raw.kv.range({ key: Buffer.from('/calico/') })).header.revision;
const errorOf = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => expect.fail('expected a rejection'),
    (e: unknown) => e,
  );

describe.each(ETCD_TRANSPORTS)('etcd transact over %s', (transport) => {
  let ds: Datastore;
  beforeAll(async () => {
    ds = createEtcdDatastore({ endpoints: (await etcd.get()).endpoints, transport });
  });
  afterEach(() => etcd.wipe());
  afterAll(async () => {
    await ds.close();
  });

  it('applies every write at one etcd revision, which every result carries', async () => {
    const before = await ds.create(handle('old'));
    const doomed = await ds.create(handle('doomed'));
    const start = BigInt(await storeRevision());
    const block = new BlockBuilder('10.0.0.0/30').allocate([0], 'h').build();
    const [created, updated, gone] = await ds.transact!([
      { op: 'create', kv: { key: blockKey('10.0.0.0/30'), value: block } },
      { op: 'update', kv: { ...before, value: handle('old', 2).value } },
      { op: 'delete', key: doomed.key, options: { revision: doomed.revision } },
    ]);
    expect(gone).toBeUndefined();
    expect(BigInt(created!.revision)).toBe(start + 1n); // one revision for the whole transaction
    expect(await storeRevision()).toBe(created!.revision);
    expect(updated!.revision).toBe(created!.revision);
    expect(created!.uid).toBe(created!.revision);
    expect(updated!.uid).toBe(before.uid); // the key's create revision, unchanged by an update
    expect(created!.value).toEqual(block);
    expect(await ds.get(updated!.key)).toEqual(updated);
    expect(await ds.get(created!.key)).toEqual(created);
    await expect(ds.get(doomed.key)).rejects.toMatchObject({ code: 'DoesNotExist' });
  });

  it('a watch sees every change of the transaction, all at its revision', async () => {
    const a = await ds.create(handle('a'));
    await ds.create(handle('b'));
    const stream = ds.watch({ kind: 'IPAMHandle' });
    await stream.established;
    const [, c] = await ds.transact!([
      { op: 'delete', key: a.key, options: { revision: a.revision, uid: a.uid! } },
      { op: 'create', kv: handle('c') },
      { op: 'update', kv: { ...(await ds.get(handleKey('b'))), value: handle('b', 5).value } },
    ]);
    const seen: WatchEvent[] = [];
    for await (const e of stream) {
      seen.push(e);
      if (seen.length === 3) break;
    }
    stream.close();
    expect(new Set(seen.map((e) => e.revision))).toEqual(new Set([c!.revision]));
    expect(seen).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'deleted', key: a.key }),
        expect.objectContaining({ type: 'added', kv: c }),
        expect.objectContaining({
          type: 'modified',
          kv: expect.objectContaining({ key: handleKey('b') }),
        }),
      ]),
    );
  });

  it.each<[string, (kvs: { a: KVPair; b: KVPair }) => TransactionWrite]>([
    [
      'a create of an existing key',
      ({ b }) => ({ op: 'create', kv: { key: b.key, value: b.value } }),
    ],
    [
      'an update at a stale revision',
      ({ b }) => ({ op: 'update', kv: { ...b, revision: String(Number(b.revision) - 1) } }),
    ],
    [
      'an update of a missing key',
      () => ({ op: 'update', kv: { ...handle('missing'), revision: '3' } }),
    ],
    ['a delete of a missing key', () => ({ op: 'delete', key: handleKey('missing') })],
    [
      'a delete at a stale revision',
      ({ b }) => ({ op: 'delete', key: b.key, options: { revision: '1' } }),
    ],
    ['a delete of another uid', ({ b }) => ({ op: 'delete', key: b.key, options: { uid: '1' } })],
  ])(
    'refuses %s in second place with the error the write alone raises, writing nothing',
    async (_what, failing) => {
      const a = await ds.create(handle('a'));
      const b = await ds.create(handle('b'));
      const write = failing({ a, b });
      const alone = await errorOf(
        write.op === 'create'
          ? ds.create(write.kv)
          : write.op === 'update'
            ? ds.update(write.kv)
            : ds.delete(write.key, write.options),
      );
      const revision = await storeRevision();
      // The third write would fail too, on another key: the second is the one reported.
      const err = await errorOf(
        ds.transact!([
          { op: 'update', kv: { ...a, value: handle('a', 9).value } },
          write,
          { op: 'delete', key: handleKey('nowhere') },
        ]),
      );
      const { code, message, identifier } = alone as IpamError;
      expect(err).toBeInstanceOf(IpamError);
      expect(err).toMatchObject({ code, message, identifier });
      expect(await storeRevision()).toBe(revision);
      expect(await ds.get(a.key)).toEqual(a);
      expect(await ds.get(b.key)).toEqual(b);
    },
  );

  it('refuses bad input with InvalidArgument before sending anything', async () => {
    const a = await ds.create(handle('a'));
    const revision = await storeRevision();
    const wrongCidr = new BlockBuilder('10.0.0.4/30').build(); // not the block its key names
    for (const writes of [
      [
        { op: 'create', kv: handle('x') },
        { op: 'delete', key: handleKey('x') },
      ],
      [
        { op: 'create', kv: handle('x') },
        { op: 'create', kv: { key: blockKey('10.0.0.0/30'), value: wrongCidr } },
      ],
      [
        { op: 'create', kv: handle('x') },
        { op: 'update', kv: { ...a, revision: 'latest' } },
      ],
      [
        { op: 'create', kv: handle('x') },
        { op: 'delete', key: a.key, options: { uid: '-1' } },
      ],
    ] as TransactionWrite[][]) {
      await expect(ds.transact!(writes)).rejects.toMatchObject({ code: 'InvalidArgument' });
    }
    expect(await storeRevision()).toBe(revision);
    await expect(ds.get(handleKey('x'))).rejects.toMatchObject({ code: 'DoesNotExist' });
    // The single create refuses the same value the same way.
    await expect(
      ds.create({ key: blockKey('10.0.0.0/30'), value: wrongCidr }),
    ).rejects.toMatchObject({
      code: 'InvalidArgument',
      identifier: '/calico/ipam/v2/assignment/ipv4/block/10.0.0.0-30',
    });
    expect(await storeRevision()).toBe(revision);
  });

  it('an empty transaction writes nothing and returns nothing', async () => {
    const revision = await storeRevision();
    await expect(ds.transact!([])).resolves.toEqual([]);
    expect(await storeRevision()).toBe(revision);
  });
});
