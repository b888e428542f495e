import { createIpamClient } from '@netledger/ipam-core';
import type { Datastore } from '@netledger/ipam-core';
import { startEtcd } from '@netledger/testkit';
import type { EtcdFixture } from '@netledger/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDatastoreOpener } from './create-datastore-opener.js';
import type { EtcdTransport } from './datastore-config.js';
import { loadEtcdGrpc } from './etcd-grpc.js';

let etcd: EtcdFixture;
beforeAll(async () => {
  etcd = await startEtcd();
});
afterAll(async () => {
  await etcd?.stop();
});
const opened: Datastore[] = [];
afterEach(async () => {
  for (const ds of opened.splice(0)) await ds.close();
});

const opener = (transport: EtcdTransport) =>
  createDatastoreOpener({
    user: () => ({ uid: 1000, home: '/nonexistent' }),
    etcd: { transport, loadGrpc: loadEtcdGrpc, dialTimeoutMs: 5000 },
  });

describe('createDatastoreOpener: etcd against a real etcd', () => {
  it('writes through one transport what the other reads, from the endpoints text', async () => {
    const config = { type: 'etcdv3', endpoints: etcd.endpoints.join(', ') } as const;
    const viaGateway = await opener('http').open(config);
    opened.push(viaGateway);
    await createIpamClient({ datastore: viaGateway }).pools.create({
      metadata: { name: 'via-gateway' },
      spec: { cidr: '10.20.0.0/24' },
    });
    const grpc = opener('grpc');
    await grpc.preload(config);
    const viaGrpc = await grpc.open(config);
    opened.push(viaGrpc);
    expect(await createIpamClient({ datastore: viaGrpc }).pools.list()).toMatchObject([
      { metadata: { name: 'via-gateway' }, spec: { cidr: '10.20.0.0/24' } },
    ]);
    // The config's transport wins over the app's default.
    const viaConfig = await grpc.open({ ...config, transport: 'http' });
    opened.push(viaConfig);
    expect(
      (await createIpamClient({ datastore: viaConfig }).pools.get('via-gateway')).spec,
    ).toMatchObject({
      cidr: '10.20.0.0/24',
    });
  });
});
