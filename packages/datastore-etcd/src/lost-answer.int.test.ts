import { createServer, connect } from 'node:net';
import type { Server, Socket } from 'node:net';
import type { Datastore, DatastoreKey } from '@netledger/ipam-core';
import { startEtcd } from '@netledger/testkit';
import type { EtcdFixture } from '@netledger/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ETCD_TRANSPORTS } from '../test/wiped-etcd-target.js';
import { createEtcdDatastore } from './create-etcd-datastore.js';
import { etcdctl } from './test-calico-fixtures.js';

/** A loopback TCP proxy that, when armed, cuts the connection at the next bytes etcd sends back. */
interface DroppingProxy {
  readonly url: string;
  arm(): void;
  readonly drops: number;
  close(): Promise<void>;
}

async function startDroppingProxy(target: URL): Promise<DroppingProxy> {
  let armed = false;
  let drops = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => {
        sockets.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (d) => upstream.write(d));
    upstream.on('data', (d) => {
      if (armed) {
        // The request already reached etcd; its answer is lost.
        armed = false;
        drops++;
        client.destroy();
        upstream.destroy();
        return;
      }
      client.write(d);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('proxy has no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    arm: () => (armed = true),
    get drops() {
      return drops;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let etcd: EtcdFixture;
beforeAll(async () => {
  etcd = await startEtcd();
});
afterAll(async () => {
  await etcd.stop();
});

// Once per transport on one etcd (each its own proxy and key): over the gateway the history read
// that resolves the outcome is an HTTP watch stream.
describe.each(ETCD_TRANSPORTS)('writes whose answer is lost, over %s', (transport) => {
  const key: DatastoreKey<'IPAMHandle'> = { kind: 'IPAMHandle', handleId: `lost-${transport}` };
  const path = `/calico/ipam/v2/handle/lost-${transport}`;
  let proxy: DroppingProxy;
  let ds: Datastore;
  beforeAll(async () => {
    proxy = await startDroppingProxy(new URL(etcd.endpoints[0]!));
    ds = createEtcdDatastore({ endpoints: [proxy.url], dialTimeoutMs: 10_000, transport });
  });
  afterAll(async () => {
    await ds.close();
    await proxy.close();
  });

  it('create, update and delete each resolve to exactly one applied change', async () => {
    await ds.get(key).catch(() => undefined); // connect first, so the drop hits a write
    proxy.arm();
    const created = await ds.create({
      key,
      value: { handleId: key.handleId, block: { '10.0.0.0/26': 1 }, deleted: false },
    });
    expect(proxy.drops).toBe(1);
    proxy.arm();
    const updated = await ds.update({
      ...created,
      value: { ...created.value, block: { '10.0.0.0/26': 2 } },
    });
    expect(proxy.drops).toBe(2);
    const shown = JSON.parse(etcdctl(etcd.endpoints, ['get', path, '-w', 'json'])) as {
      kvs: { mod_revision: number; version: number; value: string }[];
    };
    const stored = shown.kvs[0]!;
    expect(Buffer.from(stored.value, 'base64').toString()).toBe(
      '{"block":{"10.0.0.0/26":2},"deleted":false}',
    );
    expect(updated.revision).toBe(String(stored.mod_revision));
    expect(stored.version).toBe(2); // one create and one update: nothing applied twice
    proxy.arm();
    await ds.delete(key, { revision: updated.revision });
    expect(proxy.drops).toBe(3);
    await expect(ds.get(key)).rejects.toMatchObject({ code: 'DoesNotExist' });
  });

  it('a transaction resolves to all of its writes applied once, at one revision', async () => {
    const keyOf = (name: string): DatastoreKey<'IPAMHandle'> => ({
      kind: 'IPAMHandle',
      handleId: `${key.handleId}-tx-${name}`,
    });
    const value = (name: string, n: number) => ({
      handleId: keyOf(name).handleId,
      block: { '10.0.0.0/26': n },
      deleted: false,
    });
    const kept = await ds.create({ key: keyOf('kept'), value: value('kept', 1) });
    const doomed = await ds.create({ key: keyOf('doomed'), value: value('doomed', 1) });
    let drops = proxy.drops;
    proxy.arm();
    const [updated, created, gone] = await ds.transact!([
      { op: 'update', kv: { ...kept, value: value('kept', 2) } },
      { op: 'create', kv: { key: keyOf('new'), value: value('new', 1) } },
      { op: 'delete', key: doomed.key, options: { revision: doomed.revision } },
    ]);
    expect(proxy.drops).toBe(drops + 1);
    expect(gone).toBeUndefined();
    const stored = (name: string) =>
      (
        JSON.parse(etcdctl(etcd.endpoints, ['get', `${path}-tx-${name}`, '-w', 'json'])) as {
          kvs?: { mod_revision: number; create_revision: number; version: number }[];
        }
      ).kvs?.[0];
    expect(stored('kept')).toMatchObject({ version: 2, mod_revision: Number(updated!.revision) });
    expect(stored('new')).toMatchObject({ version: 1, mod_revision: Number(updated!.revision) });
    expect(created).toMatchObject({ revision: updated!.revision, uid: updated!.revision });
    expect(updated!.uid).toBe(kept.uid);
    expect(stored('doomed')).toBeUndefined();

    // Creates only: the revision the first key was created at, checked against the others.
    drops = proxy.drops;
    proxy.arm();
    const [a, b] = await ds.transact!([
      { op: 'create', kv: { key: keyOf('a'), value: value('a', 1) } },
      { op: 'create', kv: { key: keyOf('b'), value: value('b', 1) } },
    ]);
    expect(proxy.drops).toBe(drops + 1);
    expect(b!.revision).toBe(a!.revision);
    expect(stored('a')).toMatchObject({ version: 1, mod_revision: Number(a!.revision) });
    expect(stored('b')).toMatchObject({ version: 1, mod_revision: Number(a!.revision) });
  });

  it("a lost transaction refused because of a key that was there before is that write's error", async () => {
    const taken: DatastoreKey<'IPAMHandle'> = {
      kind: 'IPAMHandle',
      handleId: `${key.handleId}-taken`,
    };
    const fresh: DatastoreKey<'IPAMHandle'> = {
      kind: 'IPAMHandle',
      handleId: `${key.handleId}-fresh`,
    };
    const value = { handleId: taken.handleId, block: { '10.0.0.0/26': 1 }, deleted: false };
    await ds.create({ key: taken, value });
    const drops = proxy.drops;
    proxy.arm();
    await expect(
      ds.transact!([
        { op: 'create', kv: { key: fresh, value: { ...value, handleId: fresh.handleId } } },
        { op: 'create', kv: { key: taken, value } },
      ]),
    ).rejects.toMatchObject({ code: 'AlreadyExists', identifier: `${path}-taken` });
    expect(proxy.drops).toBe(drops + 1);
    await expect(ds.get(fresh)).rejects.toMatchObject({ code: 'DoesNotExist' });
    await ds.delete(taken);
  });

  it('a lost create of a key that already held the same bytes is AlreadyExists, not ours', async () => {
    // What an assign retried after a lost block write does: its handle create repeats the bytes
    // the first attempt created. Taking that key for its own would skip the handle's count.
    const again: DatastoreKey<'IPAMHandle'> = {
      kind: 'IPAMHandle',
      handleId: `${key.handleId}-again`,
    };
    const value = { handleId: again.handleId, block: { '10.0.0.0/26': 1 }, deleted: false };
    await ds.create({ key: again, value });
    const drops = proxy.drops;
    proxy.arm();
    await expect(ds.create({ key: again, value })).rejects.toMatchObject({ code: 'AlreadyExists' });
    expect(proxy.drops).toBe(drops + 1);
    await ds.delete(again);
  });
});
