import type { Datastore } from '@netledger/ipam-core';
import { createTestCertificates, startEtcd } from '@netledger/testkit';
import type { EtcdFixture, TestCertificates } from '@netledger/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ETCD_TRANSPORTS } from '../test/wiped-etcd-target.js';
import { createEtcdDatastore } from './create-etcd-datastore.js';
import { parseEtcdEndpoints } from './parse-etcd-endpoints.js';

// The endpoint forms clientv3 and etcdctl accept without a scheme, through the library, on both
// transports, against a real etcd: `127.0.0.1:PORT` and `[::1]:PORT` (plain http), and
// `127.0.0.1:PORT` with TLS material (https).

let plain: EtcdFixture;
let secure: EtcdFixture;
let certs: TestCertificates;

const portOf = (url: string): string => new URL(url).port;

beforeAll(async () => {
  certs = await createTestCertificates();
  [plain, secure] = await Promise.all([
    startEtcd({ ipv6Loopback: true }),
    startEtcd({
      tls: {
        caFile: certs.ca.path,
        certFile: certs.serverCert.path,
        keyFile: certs.serverKey.path,
      },
    }),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([plain?.stop(), secure?.stop()]);
  await certs?.remove();
});

/** Creates a pool through `ds` and reads it back; closes `ds`. */
async function roundTrip(ds: Datastore, name: string): Promise<unknown> {
  try {
    const key = { kind: 'IPPool', name } as const;
    await ds.create({ key, value: { metadata: { name }, spec: { cidr: '10.9.0.0/24' } } });
    return (await ds.get(key)).value.spec.cidr;
  } finally {
    await ds.close();
  }
}

describe.each(ETCD_TRANSPORTS)('endpoints without a scheme, %s transport', (transport) => {
  it.each([
    ['127.0.0.1:PORT', (port: string) => `127.0.0.1:${port}`],
    ['[::1]:PORT', (port: string) => `[::1]:${port}`],
  ])('%s reaches a plain etcd over http', async (_, form) => {
    const text = form(portOf(plain.endpoints[0]!));
    const ds = createEtcdDatastore({ endpoints: parseEtcdEndpoints(text), transport });
    expect(await roundTrip(ds, `p-${transport}-${text.startsWith('[') ? 6 : 4}`)).toBe(
      '10.9.0.0/24',
    );
  });

  it('127.0.0.1:PORT with TLS material reaches an etcd serving https', async () => {
    const ds = createEtcdDatastore({
      endpoints: parseEtcdEndpoints(`127.0.0.1:${portOf(secure.endpoints[0]!)}`),
      tls: { ca: certs.ca.path },
      transport,
    });
    expect(await roundTrip(ds, `tls-${transport}`)).toBe('10.9.0.0/24');
  });
});

it('the factory refuses a bad endpoint with InvalidArgument before connecting', () => {
  expect(() => createEtcdDatastore({ endpoints: ['::1:2379'] })).toThrow(
    'put an IPv6 address in brackets',
  );
});
