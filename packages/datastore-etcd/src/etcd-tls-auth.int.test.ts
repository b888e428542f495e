import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Datastore } from '@netledger/ipam-core';
import { IpamError, createIpamClient } from '@netledger/ipam-core';
import { createTestCertificates, startEtcd } from '@netledger/testkit';
import type { EtcdFixture, TestCertificates } from '@netledger/testkit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ETCD_TRANSPORTS } from '../test/wiped-etcd-target.js';
import { createEtcdDatastore } from './create-etcd-datastore.js';
import type { EtcdDatastoreOptions } from './etcd-datastore-options.js';
import { etcdctl } from './test-calico-fixtures.js';

// Both transports against a real etcd 3.4 that serves clients over TLS, requires a client
// certificate signed by its CA (--client-cert-auth) and has user auth on. The Datastore logs in
// as `calico`, whose role may read and write only under /calico/, as Calico's docs set it up.
//
// Which identity etcd 3.4 uses (checked with etcdctl against this setup): a request carrying a
// token (from a password) is that token's user, whatever the certificate says; without a token,
// a gRPC request is the user named by the certificate's CommonName, and through the HTTP gateway
// it is nobody. So the client certificate here has no CommonName: nothing but the password can
// make a request `calico`, and the tests without one show it is refused. etcd 3.4's gateway also
// refuses, with HTTP 400, any /v3/ request from a certificate that has a CommonName once both
// client-cert auth and user auth are on; the last table pins what each transport does with one.

const USER = 'calico';
const PASSWORD = 'calico-secret';
const ROOT_PASSWORD = 'root-secret';

let certs: TestCertificates;
/** A second CA (etcd trusts both) whose client certificate has CommonName `netledger`. */
let namedCerts: TestCertificates;
/** Certificates from a CA etcd does not trust. */
let strangerCerts: TestCertificates;
let etcd: EtcdFixture;
let endpoint: string;

/** etcdctl over TLS with this file's client certificate, optionally as root. */
const admin = (args: string[], asRoot = true): string =>
  etcdctl(etcd.endpoints, [
    `--cacert=${certs.ca.path}`,
    `--cert=${certs.clientCert.path}`,
    `--key=${certs.clientKey.path}`,
    ...(asRoot ? [`--user=root:${ROOT_PASSWORD}`] : []),
    ...args,
  ]);

beforeAll(async () => {
  [certs, namedCerts, strangerCerts] = await Promise.all([
    createTestCertificates(),
    createTestCertificates({ clientCommonName: 'netledger' }),
    createTestCertificates(),
  ]);
  const trusted = join(certs.dir, 'trusted-cas.pem');
  await writeFile(trusted, certs.ca.pem + namedCerts.ca.pem);
  etcd = await startEtcd({
    tls: {
      caFile: trusted,
      certFile: certs.serverCert.path,
      keyFile: certs.serverKey.path,
      clientCertAuth: true,
    },
  });
  // By name, as deployments address etcd: TLS's server name (SNI) is never an IP address (RFC 6066).
  endpoint = etcd.endpoints[0]!.replace('//127.0.0.1:', '//localhost:');
  for (const args of [
    ['user', 'add', `root:${ROOT_PASSWORD}`],
    ['user', 'add', `${USER}:${PASSWORD}`],
    ['role', 'add', USER],
    ['role', 'grant-permission', USER, 'readwrite', '/calico/', '--prefix=true'],
    ['user', 'grant-role', USER, USER],
    ['user', 'grant-role', 'root', 'root'], // etcd 3.4 enables auth only with a root user that has it
    ['auth', 'enable'],
  ]) {
    admin(args, false);
  }
});
afterAll(async () => {
  await etcd?.stop();
  await certs?.remove();
  await namedCerts?.remove();
  await strangerCerts?.remove();
});

describe.each(ETCD_TRANSPORTS)('over %s with TLS and etcd auth', (transport) => {
  /** Options of a store as `calico` with the CA and client certificate (as file paths). */
  const storeOptions = (more: Partial<EtcdDatastoreOptions> = {}): EtcdDatastoreOptions => ({
    endpoints: [endpoint],
    tls: { ca: certs.ca.path, cert: certs.clientCert.path, key: certs.clientKey.path },
    username: USER,
    password: PASSWORD,
    transport,
    ...more,
  });
  const stores: Datastore[] = [];
  const open = (more?: Partial<EtcdDatastoreOptions>): Datastore => {
    // Each test's own store, so a failed login cannot leave state for the next test.
    const ds = createEtcdDatastore(storeOptions(more));
    stores.push(ds);
    return ds;
  };
  /** The error an operation failed with, and how long it took. */
  const failure = async (op: Promise<unknown>): Promise<{ err: unknown; ms: number }> => {
    const started = Date.now();
    const err = await op.then(
      () => 'no error',
      (e: unknown) => e,
    );
    return { err, ms: Date.now() - started };
  };

  beforeEach(() => {
    admin(['del', '--prefix', '/calico/']);
  });
  afterAll(async () => {
    await Promise.all(stores.map((ds) => ds.close()));
  });

  it('creates, reads, updates, lists and deletes as the etcd user', async () => {
    const ds = open();
    const key = { kind: 'IPAMHandle', handleId: 'tls-h' } as const;
    const created = await ds.create({
      key,
      value: { handleId: 'tls-h', block: {}, deleted: false },
    });
    await expect(ds.get(key)).resolves.toMatchObject({ revision: created.revision });
    const updated = await ds.update({
      ...created,
      value: { ...created.value, block: { '10.0.0.0/26': 1 } },
    });
    expect(Number(updated.revision)).toBeGreaterThan(Number(created.revision));
    const listed = await ds.list({ kind: 'IPAMHandle' });
    expect(listed.items).toHaveLength(1);
    expect(listed.items[0]).toMatchObject({
      value: { handleId: 'tls-h', block: { '10.0.0.0/26': 1 } },
    });
    // What etcd holds, read as root over etcdctl: the write really went through etcd.
    expect(admin(['get', '--print-value-only', '/calico/ipam/v2/handle/tls-h'])).toContain(
      '"10.0.0.0/26":1',
    );
    await ds.delete(key, { revision: updated.revision });
    await expect(ds.get(key)).rejects.toMatchObject({ code: 'DoesNotExist' });
  });

  it('assigns an address through an IpamClient and releases it', async () => {
    const client = createIpamClient({ datastore: open() });
    await client.pools.create({
      metadata: { name: 'tls-pool' },
      spec: { cidr: '10.40.0.0/24', blockSize: 26 },
    });
    await client.nodes.create({ metadata: { name: 'tls-node' } });
    const { v4 } = await client.autoAssign({
      num4: 1,
      hostname: 'tls-node',
      handleId: 'tls-pod',
      intendedUse: 'Workload',
    });
    expect(v4.ips).toEqual([expect.stringMatching(/^10\.40\.0\.\d+\/26$/)]);
    await client.releaseByHandle('tls-pod');
    expect(admin(['get', '--keys-only', '/calico/ipam/v2/handle/tls-pod'])).toBe('');
  });

  it('fails fast, PermissionDenied and naming the endpoint, with a wrong password', async () => {
    const ds = open({ password: 'wrong', dialTimeoutMs: 10_000 });
    const { err, ms } = await failure(ds.get({ kind: 'IPAMConfig' }));
    expect(err).toBeInstanceOf(IpamError);
    expect(err).toMatchObject({ code: 'PermissionDenied' });
    // grpc-js puts its status before etcd's text ("3 INVALID_ARGUMENT: ").
    expect((err as IpamError).message).toMatch(
      new RegExp(
        `^etcd at ${endpoint} refused the request: (3 INVALID_ARGUMENT: )?etcdserver: authentication failed, invalid user ID or password$`,
      ),
    );
    expect(ms).toBeLessThan(2000); // not retried until the dial timeout
  });

  it('is refused without a username: the client certificate alone is no etcd user', async () => {
    const ds = open({ username: undefined, password: undefined, dialTimeoutMs: 10_000 });
    const { err, ms } = await failure(ds.get({ kind: 'IPAMConfig' }));
    expect(err).toBeInstanceOf(IpamError);
    expect(err).toMatchObject({ code: 'PermissionDenied' });
    expect((err as IpamError).message).toMatch(
      new RegExp(
        `^etcd at ${endpoint} refused the request: (7 PERMISSION_DENIED: )?etcdserver: permission denied$`,
      ),
    );
    expect(ms).toBeLessThan(2000);
  });

  it('fails Unavailable within the dial timeout, naming the endpoint, without the CA', async () => {
    const ds = open({
      tls: { cert: certs.clientCert.path, key: certs.clientKey.path }, // the system roots
      dialTimeoutMs: 1000,
      requestTimeoutMs: 1000,
    });
    const { err, ms } = await failure(ds.get({ kind: 'IPAMConfig' }));
    expect(err).toBeInstanceOf(IpamError);
    expect(err).toMatchObject({ code: 'Unavailable' });
    expect((err as IpamError).message).toMatch(new RegExp(`^etcd at ${endpoint} unreachable: `));
    expect(ms).toBeLessThan(4000);
  });

  // Mutual TLS: the password is right and the server is trusted, but etcd (--client-cert-auth)
  // ends the handshake for a client that shows no certificate, or one its CAs did not sign.
  it.each([
    ['no client certificate', () => ({ ca: certs.ca.path })],
    [
      'a client certificate from a CA etcd does not trust',
      () => ({
        ca: certs.ca.path,
        cert: strangerCerts.clientCert.path,
        key: strangerCerts.clientKey.path,
      }),
    ],
  ])('is refused with %s, naming the endpoint, and writes nothing', async (_, tls) => {
    const ds = open({ tls: tls(), dialTimeoutMs: 1000, requestTimeoutMs: 1000 });
    const key = { kind: 'IPAMHandle', handleId: 'mtls-h' } as const;
    const { err } = await failure(
      ds.create({ key, value: { handleId: 'mtls-h', block: {}, deleted: false } }),
    );
    expect(err).toBeInstanceOf(IpamError);
    expect(err).toMatchObject({ code: 'Unavailable' });
    expect((err as IpamError).message).toMatch(new RegExp(`^etcd at ${endpoint} unreachable: `));
    // The same store with the trusted client certificate sees that nothing was written.
    await expect(open().get(key)).rejects.toMatchObject({ code: 'DoesNotExist' });
  });
});

// etcd 3.4 with client-cert auth and user auth refuses a certificate with a CommonName on its
// HTTP gateway only (see the top of the file); over gRPC the password's user wins over the CN.
describe('a client certificate with a CommonName that is no etcd user, and the password', () => {
  const named = (transport: 'grpc' | 'http'): Datastore =>
    createEtcdDatastore({
      endpoints: [endpoint],
      tls: { ca: certs.ca.pem, cert: namedCerts.clientCert.pem, key: namedCerts.clientKey.pem },
      username: USER,
      password: PASSWORD,
      dialTimeoutMs: 10_000,
      transport,
    });

  it('over grpc: works, as the password’s user', async () => {
    const ds = named('grpc');
    try {
      const key = { kind: 'IPAMHandle', handleId: 'named-cn' } as const;
      await ds.create({ key, value: { handleId: 'named-cn', block: {}, deleted: false } });
      await expect(ds.get(key)).resolves.toMatchObject({ value: { handleId: 'named-cn' } });
    } finally {
      await ds.close();
    }
  });

  it('over http: refused by etcd’s gateway at once, quoting it', async () => {
    const ds = named('http');
    try {
      const started = Date.now();
      const err = await ds.get({ kind: 'IPAMConfig' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(IpamError);
      expect(err).toMatchObject({
        code: 'PermissionDenied',
        message: `etcd at ${endpoint} refused the request: ${endpoint}: etcd's HTTP gateway refuses a client certificate with a CommonName while etcd auth is on ("CommonName of client sending a request against gateway will be ignored and not used as expected"); use the grpc transport, or a client certificate without a CommonName`,
      });
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      await ds.close();
    }
  });
});
