import { IpamError } from '@netledger/ipam-core';
import { describeDatastoreContract, findFreePort } from '@netledger/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ETCD_TRANSPORTS,
  createSharedEtcd,
  createWipedEtcdTarget,
} from '../test/wiped-etcd-target.js';
import { createEtcdDatastore } from './create-etcd-datastore.js';

const etcd = createSharedEtcd();
afterAll(() => etcd.stop());
for (const transport of ETCD_TRANSPORTS) {
  describeDatastoreContract(`etcd over ${transport}`, {
    listOrder: 'path',
    ...createWipedEtcdTarget(etcd, transport),
  });
}

describe.each(ETCD_TRANSPORTS)('etcd datastore over %s: unreachable etcd', (transport) => {
  it('fails Unavailable naming the endpoints within the dial timeout, instead of hanging', async () => {
    const port = await findFreePort(); // free, so nothing listens: connections are refused
    const endpoint = `http://127.0.0.1:${port}`;
    const ds = createEtcdDatastore({
      endpoints: [endpoint],
      dialTimeoutMs: 1500,
      requestTimeoutMs: 1000,
      transport,
    });
    const started = Date.now();
    const err = await ds.get({ kind: 'IPAMConfig' }).catch((e: unknown) => e);
    const elapsed = Date.now() - started;
    expect(err).toBeInstanceOf(IpamError);
    expect(err).toMatchObject({ code: 'Unavailable' });
    expect((err as IpamError).message).toMatch(new RegExp(`^etcd at ${endpoint} unreachable: `));
    expect(elapsed).toBeGreaterThanOrEqual(1000); // it retried, rather than failing at once
    expect(elapsed).toBeLessThan(5000);
    const write = await ds
      .create({
        key: { kind: 'IPAMHandle', handleId: 'h' },
        value: { handleId: 'h', block: {}, deleted: false },
      })
      .catch((e: unknown) => e);
    expect(write).toMatchObject({ code: 'Unavailable' });
    expect((write as IpamError).message).toContain('may or may not have been applied');
    await ds.close();
    await expect(ds.get({ kind: 'IPAMConfig' })).rejects.toMatchObject({
      code: 'Unavailable',
      message: 'datastore is closed',
    });
  });

  it('uses the next endpoint when the first refuses connections', async () => {
    const dead = `http://127.0.0.1:${await findFreePort()}`;
    const ds = createEtcdDatastore({
      endpoints: [dead, ...(await etcd.get()).endpoints],
      dialTimeoutMs: 5000,
      transport,
    });
    try {
      const started = Date.now();
      const created = await ds.create({
        key: { kind: 'IPAMHandle', handleId: `next-${transport}` },
        value: { handleId: `next-${transport}`, block: {}, deleted: false },
      });
      await expect(ds.get(created.key)).resolves.toMatchObject({ revision: created.revision });
      expect(Date.now() - started).toBeLessThan(2500);
    } finally {
      await ds.close();
    }
  });
});

describe.each(ETCD_TRANSPORTS)(
  'etcd datastore over %s: a user for an etcd without auth',
  (transport) => {
    it('fails PermissionDenied at once, quoting etcd: the settings are wrong, not the moment', async () => {
      const ds = createEtcdDatastore({
        endpoints: (await etcd.get()).endpoints,
        username: 'calico',
        password: 'secret',
        dialTimeoutMs: 10_000,
        transport,
      });
      try {
        const started = Date.now();
        const err = await ds.get({ kind: 'IPAMConfig' }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(IpamError);
        expect(err).toMatchObject({
          code: 'PermissionDenied',
          message: expect.stringMatching(/authentication is not enabled$/),
        });
        expect(Date.now() - started).toBeLessThan(5000); // not retried until the dial timeout
      } finally {
        await ds.close();
      }
    });
  },
);

describe.each(ETCD_TRANSPORTS)('etcd datastore over %s: object size', (transport) => {
  it('refuses a value over 1.5 MiB encoded with InvalidArgument naming the key and the limit, sending nothing', async () => {
    const { open } = createWipedEtcdTarget(etcd, transport);
    const ds = await open();
    try {
      const key = { kind: 'Node', name: `big-${transport}` } as const;
      const small = await ds.create({ key, value: { metadata: { name: key.name } } });
      const big = {
        metadata: { name: key.name, annotations: { blob: 'x'.repeat(2 * 1024 * 1024) } },
      };
      const other = { kind: 'Node', name: `other-${transport}` } as const;
      for (const write of [
        () => ds.create({ key: other, value: big }),
        () => ds.update({ ...small, value: big }),
        () => ds.apply({ key, value: big }),
        () => ds.transact!([{ op: 'update', kv: { ...small, value: big } }]),
      ]) {
        const err = await write().catch((e: unknown) => e);
        expect(err).toBeInstanceOf(IpamError);
        expect(err).toMatchObject({
          code: 'InvalidArgument',
          message: expect.stringMatching(
            /^refusing to write \/calico\/resources\/v3\/projectcalico\.org\/nodes\/(big|other)-\w+: encoded it is at least \d+ bytes, over the limit of 1572864 bytes \(1\.5 MiB/,
          ) as unknown,
        });
      }
      await expect(ds.get(key)).resolves.toMatchObject({ revision: small.revision });
      await expect(ds.get(other)).rejects.toMatchObject({ code: 'DoesNotExist' });
    } finally {
      await ds.close();
    }
  });
});
