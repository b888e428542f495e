import { IpamError } from '@netledger/ipam-core';
import { describeDatastoreContract, findFreePort } from '@netledger/testkit';
import { createWipedEtcdTarget } from '../test/wiped-etcd-target.js';
import { describe, expect, it } from 'vitest';
import { createEtcdDatastore } from './create-etcd-datastore.js';

describeDatastoreContract('etcd', { listOrder: 'path', ...createWipedEtcdTarget() });

describe('etcd datastore: unreachable etcd', () => {
  it('fails Unavailable naming the endpoints within the dial timeout, instead of hanging', async () => {
    const port = await findFreePort(); // free, so nothing listens: connections are refused
    const endpoint = `http://127.0.0.1:${port}`;
    const ds = createEtcdDatastore({
      endpoints: [endpoint],
      dialTimeoutMs: 1500,
      requestTimeoutMs: 1000,
    });
    const started = Date.now();
    const err = await ds.get({ kind: 'IPAMConfig' }).catch((e: unknown) => e);
    const elapsed = Date.now() - started;
    expect(err).toBeInstanceOf(IpamError);
    expect(err).toMatchObject({ code: 'Unavailable' });
    expect((err as IpamError).message).toMatch(new RegExp(`^etcd at ${endpoint} unreachable: `));
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
});
