import { join } from 'node:path';
import { createEtcdDatastore } from '@netledger/datastore-etcd';
import { createIpamClient, isIpamError } from '@netledger/ipam-core';
import type { IpamClient } from '@netledger/ipam-core';
import { createTempDir, startEtcd } from '@netledger/testkit';
import type { EtcdFixture } from '@netledger/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cniEnv, execPlugin, execPluginAsync, requirePlugin } from './exec-harness.js';

// bin/netledger-ipam on a real etcd (through etcd's HTTP/JSON gateway), checked from a separate
// gRPC client: what the plugin writes is what any Calico-compatible etcd client reads.
let etcd: EtcdFixture;
let dir: { path: string; remove: () => Promise<void> };
let client: IpamClient;
let closeClient: () => Promise<void>;

const conf = (over: Record<string, unknown> = {}, ipam: Record<string, unknown> = {}): string =>
  JSON.stringify({
    cniVersion: '1.1.0',
    name: 'etcdnet',
    ...over,
    ipam: {
      type: 'netledger-ipam',
      nodename: 'etcd-node',
      datastore_type: 'etcdv3',
      etcd_endpoints: etcd.endpoints.join(','),
      ipam_lock_file: join(dir.path, 'ipam.lock'),
      log_level: 'error',
      ...ipam,
    },
  });

const held = (handle: string): Promise<string[]> =>
  client.ipsByHandle(handle).catch((e: unknown) => {
    if (isIpamError(e, 'DoesNotExist')) return [];
    throw e;
  });

beforeAll(async () => {
  requirePlugin();
  [etcd, dir] = await Promise.all([startEtcd(), createTempDir('netledger-cni-etcd-')]);
  const ds = createEtcdDatastore({ endpoints: etcd.endpoints });
  closeClient = () => ds.close();
  client = createIpamClient({ datastore: ds });
  await client.pools.create({ metadata: { name: 'v4' }, spec: { cidr: '10.78.0.0/24' } });
  await client.nodes.create({ metadata: { name: 'etcd-node' } });
}, 60_000);

afterAll(async () => {
  await closeClient?.();
  await etcd?.stop();
  await dir?.remove();
});

describe('netledger-ipam on etcd', () => {
  it('ADD writes the allocation, CHECK passes, DEL releases it, CHECK then fails', async () => {
    const add = execPlugin(
      cniEnv('ADD', 'e1', { CNI_ARGS: 'IgnoreUnknown=1;K8S_POD_NAMESPACE=ns;K8S_POD_NAME=p1' }),
      conf(),
    );
    expect(add).toMatchObject({ status: 0 });
    const address = (add.json!['ips'] as { address: string }[])[0]!.address;
    expect(address).toMatch(/^10\.78\.0\.\d+\/26$/);
    expect(await client.getAssignmentAttributes(address.split('/')[0]!)).toMatchObject({
      handleId: 'etcdnet.e1',
      activeOwnerAttrs: { node: 'etcd-node', namespace: 'ns', pod: 'p1' },
    });
    expect(execPlugin(cniEnv('CHECK', 'e1'), conf({ prevResult: add.json }))).toMatchObject({
      status: 0,
      stdout: '',
    });
    expect(execPlugin(cniEnv('DEL', 'e1'), conf())).toMatchObject({ status: 0, stdout: '' });
    expect(await held('etcdnet.e1')).toEqual([]);
    expect(execPlugin(cniEnv('CHECK', 'e1'), conf({ prevResult: add.json }))).toMatchObject({
      status: 1,
      json: { code: 999 },
    });
  });

  it('etcd_transport "grpc": ADD and DEL through the gRPC adapter', async () => {
    const grpc = { etcd_transport: 'grpc' };
    const add = execPlugin(cniEnv('ADD', 'g1'), conf({}, grpc));
    expect(add).toMatchObject({ status: 0 });
    const address = (add.json!['ips'] as { address: string }[])[0]!.address;
    expect(await held('etcdnet.g1')).toEqual([address.split('/')[0]]);
    expect(execPlugin(cniEnv('DEL', 'g1'), conf({}, grpc))).toMatchObject({ status: 0 });
    expect(await held('etcdnet.g1')).toEqual([]);
  });

  it('20 concurrent ADDs get distinct addresses and 20 DELs release them all', async () => {
    const ids = Array.from({ length: 20 }, (_, i) => `ec${i}`);
    const adds = await Promise.all(ids.map((id) => execPluginAsync(cniEnv('ADD', id), conf())));
    for (const a of adds) expect(a).toMatchObject({ status: 0 });
    const addresses = adds.map((a) => (a.json!['ips'] as { address: string }[])[0]!.address);
    expect(new Set(addresses).size).toBe(20);
    const dels = await Promise.all(ids.map((id) => execPluginAsync(cniEnv('DEL', id), conf())));
    for (const d of dels) expect(d.status).toBe(0);
    expect((await client.getUtilization({ pools: ['v4'] }))[0]).toMatchObject({ inUse: 0 });
  }, 60_000);
});

// Permanent errors (the settings are wrong) are invalid network config (7); transient ones (etcd
// unreachable) are "try again later" (11), which a runtime may retry.
describe('netledger-ipam on etcd: error classes', () => {
  it.each<[string, Record<string, unknown>, number, RegExp]>([
    [
      'a user for an etcd without authentication (gateway)',
      { etcd_username: 'calico', etcd_password: 'secret' },
      7,
      /refused the request: etcdserver: authentication is not enabled$/,
    ],
    [
      'a user for an etcd without authentication (gRPC)',
      { etcd_username: 'calico', etcd_password: 'secret', etcd_transport: 'grpc' },
      7,
      /authentication is not enabled$/,
    ],
    [
      'an unknown pool',
      { ipv4_pools: ['nope'] },
      7,
      /^the given pool \(nope\) does not exist, or is not enabled$/,
    ],
    ['an unreachable etcd', { etcd_endpoints: 'http://127.0.0.1:9' }, 11, /unreachable/],
  ])(
    'ADD with %s: the right code, nothing assigned',
    async (_, ipam, code, msg) => {
      const r = execPlugin(cniEnv('ADD', 'err1'), conf({}, ipam));
      expect(r).toMatchObject({ status: 1, json: { code, msg: expect.stringMatching(msg) } });
      expect(await held('etcdnet.err1')).toEqual([]);
    },
    60_000,
  );
});
