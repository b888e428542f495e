import { join } from 'node:path';
import { createEtcdDatastore } from '@netledger/datastore-etcd';
import { createIpamClient, isIpamError } from '@netledger/ipam-core';
import type { IpamClient } from '@netledger/ipam-core';
import { createTempDir, createTestCertificates, startEtcd } from '@netledger/testkit';
import type { EtcdFixture, TestCertificates } from '@netledger/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cniEnv, execPlugin, requirePlugin } from './exec-harness.js';

// bin/netledger-ipam with `etcd_endpoints` written without a scheme, as clientv3 (calico-ipam)
// takes them: `127.0.0.1:PORT` and `[::1]:PORT` against a plain etcd, `127.0.0.1:PORT` with TLS
// material against an etcd serving https; on both etcd transports of the plugin. ADD then DEL,
// checked from a separate client.

let plain: EtcdFixture;
let secure: EtcdFixture;
let certs: TestCertificates;
let dir: { path: string; remove: () => Promise<void> };
const clients: { client: IpamClient; close: () => Promise<void> }[] = [];
let plainClient: IpamClient;
let secureClient: IpamClient;

const port = (f: EtcdFixture): string => new URL(f.endpoints[0]!).port;

const conf = (ipam: Record<string, unknown>): string =>
  JSON.stringify({
    cniVersion: '1.1.0',
    name: 'formsnet',
    ipam: {
      type: 'netledger-ipam',
      nodename: 'forms-node',
      datastore_type: 'etcdv3',
      ipam_lock_file: join(dir.path, 'ipam.lock'),
      log_level: 'error',
      ...ipam,
    },
  });

const held = (client: IpamClient, handle: string): Promise<string[]> =>
  client.ipsByHandle(handle).catch((e: unknown) => {
    if (isIpamError(e, 'DoesNotExist')) return [];
    throw e;
  });

async function seed(endpoints: string[], tls?: { ca: string }): Promise<IpamClient> {
  const ds = createEtcdDatastore({ endpoints, ...(tls && { tls }) });
  const client = createIpamClient({ datastore: ds });
  clients.push({ client, close: () => ds.close() });
  await client.pools.create({ metadata: { name: 'v4' }, spec: { cidr: '10.79.0.0/24' } });
  await client.nodes.create({ metadata: { name: 'forms-node' } });
  return client;
}

beforeAll(async () => {
  requirePlugin();
  [certs, dir] = await Promise.all([
    createTestCertificates(),
    createTempDir('netledger-cni-endpoints-'),
  ]);
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
  plainClient = await seed(plain.endpoints);
  secureClient = await seed(secure.endpoints, { ca: certs.ca.path });
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all([plain?.stop(), secure?.stop()]);
  await Promise.all([dir?.remove(), certs?.remove()]);
});

describe.each(['http', 'grpc'])(
  'etcd_endpoints without a scheme, etcd_transport %s',
  (transport) => {
    it.each([
      ['127.0.0.1:PORT', 'v4'],
      ['[::1]:PORT', 'v6'],
    ])('%s: ADD assigns, DEL releases', async (form, tag) => {
      const endpoints = form.replace('PORT', port(plain));
      const id = `${transport}-${tag}`;
      const ipam = { etcd_endpoints: endpoints, etcd_transport: transport };
      const add = execPlugin(cniEnv('ADD', id), conf(ipam));
      expect(add).toMatchObject({ status: 0, stderr: '' });
      const address = (add.json!['ips'] as { address: string }[])[0]!.address;
      expect(address).toMatch(/^10\.79\.0\.\d+\/26$/);
      expect(await held(plainClient, `formsnet.${id}`)).toEqual([address.split('/')[0]]);
      expect(execPlugin(cniEnv('DEL', id), conf(ipam))).toMatchObject({ status: 0, stdout: '' });
      expect(await held(plainClient, `formsnet.${id}`)).toEqual([]);
    });

    it('127.0.0.1:PORT with etcd_ca_cert_file speaks https', async () => {
      const id = `${transport}-tls`;
      const ipam = {
        etcd_endpoints: `127.0.0.1:${port(secure)}`,
        etcd_ca_cert_file: certs.ca.path,
        etcd_transport: transport,
      };
      const add = execPlugin(cniEnv('ADD', id), conf(ipam));
      // (Over gRPC, Node warns on stderr that grpc-js sets the TLS server name to an IP address, as
      // it does for https://127.0.0.1:PORT: not an error.)
      expect(add.status).toBe(0);
      const address = (add.json!['ips'] as { address: string }[])[0]!.address;
      expect(await held(secureClient, `formsnet.${id}`)).toEqual([address.split('/')[0]]);
      expect(execPlugin(cniEnv('DEL', id), conf(ipam))).toMatchObject({ status: 0 });
      expect(await held(secureClient, `formsnet.${id}`)).toEqual([]);
    });
  },
);

it.each([
  ['::1:2379', 'put an IPv6 address in brackets'],
  ['127.0.0.1', 'has no port'],
  ['unix:///run/etcd.sock', 'is not an http(s)://host:port URL'],
])('refuses etcd_endpoints %j with a message naming the problem', (endpoints, message) => {
  const add = execPlugin(cniEnv('ADD', 'bad'), conf({ etcd_endpoints: endpoints }));
  expect(add.status).not.toBe(0);
  expect(add.json).toMatchObject({ msg: expect.stringContaining(message) as unknown });
});
