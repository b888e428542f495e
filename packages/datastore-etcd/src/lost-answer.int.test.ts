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
