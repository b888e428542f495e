import type { Datastore, IPPool } from '@netledger/ipam-core';
import { IpamError } from '@netledger/ipam-core';
import { encodeValue } from '@netledger/ipam-core/adapter';
import { BIG_SEQUENCE, BlockBuilder, startEtcd } from '@netledger/testkit';
import type { EtcdFixture } from '@netledger/testkit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ETCD_TRANSPORTS } from '../test/wiped-etcd-target.js';
import { createEtcdDatastore } from './create-etcd-datastore.js';
import { CALICO_BLOCK, CALICO_KVS, etcdctl, etcdctlGetPrefix } from './test-calico-fixtures.js';

let etcd: EtcdFixture;
let ds: Datastore;

beforeAll(async () => {
  etcd = await startEtcd();
});
afterAll(async () => {
  await etcd.stop();
});
beforeEach(() => {
  etcdctl(etcd.endpoints, ['del', '--prefix', '/calico/']);
});

// Every test once per transport, on the same etcd: the gateway's base64 and int64 strings must
// give the same bytes and revisions as gRPC.
describe.each(ETCD_TRANSPORTS)('over %s', (transport) => {
  beforeAll(() => {
    ds = createEtcdDatastore({ endpoints: etcd.endpoints, transport });
  });
  afterAll(async () => {
    await ds.close();
  });

  describe('reading what Calico wrote (raw etcdctl puts)', () => {
    beforeEach(() => {
      for (const [key, value] of Object.entries(CALICO_KVS))
        etcdctl(etcd.endpoints, ['put', key, value]);
    });

    it('reads the §2.1 block exactly, uint64 sequence numbers intact, and re-encodes it byte for byte', async () => {
      const kv = await ds.get({ kind: 'IPAMBlock', cidr: '10.0.0.0/26' });
      expect(kv.value).toMatchObject({
        cidr: '10.0.0.0/26',
        affinity: 'host:node1',
        affinityClaimTime: '2026-01-01T00:00:00Z',
        sequenceNumber: 1767225600000000001n,
        sequenceNumberForAllocation: { '0': 1767225600000000000n },
        deleted: false,
      });
      expect(kv.value.allocations).toHaveLength(64);
      expect(kv.value.allocations[0]).toBe(0);
      expect(kv.value.unallocated).toEqual(Array.from({ length: 63 }, (_, i) => i + 1));
      expect(kv.value.attributes).toEqual([
        {
          handleId: 'k8s-pod-network.abc',
          activeOwnerAttrs: { namespace: 'default', node: 'node1', pod: 'p1' },
        },
      ]);
      expect(encodeValue('IPAMBlock', kv.value)).toBe(CALICO_BLOCK);
      expect(Number(kv.revision)).toBeGreaterThan(0);
    });

    it('reads affinities (including a legacy empty value), the handle, the config and the pool', async () => {
      const node1 = await ds.list({ kind: 'BlockAffinity', host: 'node1' });
      expect(node1.items).toHaveLength(1);
      expect(node1.items[0]).toMatchObject({
        key: { kind: 'BlockAffinity', host: 'node1', cidr: '10.0.0.0/26', affinityType: 'host' },
        value: { state: 'confirmed', deleted: false },
      });
      const legacy = await ds.get({
        kind: 'BlockAffinity',
        host: 'node2',
        cidr: 'fd80:24e2:f998:72d6::/122',
        affinityType: 'host',
      });
      expect(legacy.value).toEqual({ state: 'confirmed', deleted: false });
      const handle = await ds.get({ kind: 'IPAMHandle', handleId: 'k8s-pod-network.abc' });
      expect(handle.value).toEqual({
        handleId: 'k8s-pod-network.abc',
        block: { '10.0.0.0/26': 1 },
        deleted: false,
      });
      const config = await ds.get({ kind: 'IPAMConfig' });
      expect(config.value).toMatchObject({
        strictAffinity: true,
        autoAllocateBlocks: true,
        maxBlocksPerHost: 4,
        ipCooldownSeconds: 0,
      });
      const pools = await ds.list({ kind: 'IPPool' });
      expect(pools.items.map((p) => p.key)).toEqual([
        { kind: 'IPPool', name: 'default-ipv4-ippool' },
      ]);
      expect(pools.items[0]!.value).toMatchObject({
        metadata: { name: 'default-ipv4-ippool' },
        spec: {
          cidr: '10.0.0.0/16',
          blockSize: 26,
          nodeSelector: 'all()',
          allowedUses: ['Workload', 'Tunnel'],
        },
      });
      const blocks = await ds.list({ kind: 'IPAMBlock' });
      expect(blocks.items.map((b) => b.key)).toEqual([{ kind: 'IPAMBlock', cidr: '10.0.0.0/26' }]);
    });

    it('updates a Calico-written block by its etcdctl mod revision (CAS), and refuses a stale one', async () => {
      const kv = await ds.get({ kind: 'IPAMBlock', cidr: '10.0.0.0/26' });
      const modRevision = JSON.parse(
        etcdctl(etcd.endpoints, [
          'get',
          '/calico/ipam/v2/assignment/ipv4/block/10.0.0.0-26',
          '-w',
          'json',
        ]),
      ) as { kvs: { mod_revision: number }[] };
      expect(kv.revision).toBe(String(modRevision.kvs[0]!.mod_revision));
      etcdctl(etcd.endpoints, [
        'put',
        '/calico/ipam/v2/assignment/ipv4/block/10.0.0.0-26',
        CALICO_BLOCK,
      ]);
      await expect(ds.update(kv)).rejects.toMatchObject({ code: 'UpdateConflict' });
    });
  });

  describe('what netledger writes is what Calico writes', () => {
    it('uses exactly Calico keys and JSON fields (etcdctl get --prefix /calico)', async () => {
      const block = new BlockBuilder('10.0.0.0/26')
        .affine('node1')
        .allocate([0], 'k8s-pod-network.abc', { pod: 'p1', namespace: 'default', node: 'node1' })
        .build();
      await ds.create({ key: { kind: 'IPAMBlock', cidr: '10.0.0.0/26' }, value: block });
      await ds.create({
        key: { kind: 'IPAMBlock', cidr: 'fd80:24e2:f998:72d6::/122' },
        value: new BlockBuilder('fd80:24e2:f998:72d6::/122').build(),
      });
      await ds.create({
        key: { kind: 'BlockAffinity', host: 'node1', cidr: '10.0.0.0/26', affinityType: 'host' },
        value: { state: 'confirmed', deleted: false },
      });
      await ds.create({
        key: { kind: 'IPAMHandle', handleId: 'k8s-pod-network.abc' },
        value: { handleId: 'k8s-pod-network.abc', block: { '10.0.0.0/26': 1 }, deleted: false },
      });
      await ds.apply({
        key: { kind: 'IPAMConfig' },
        value: {
          strictAffinity: true,
          autoAllocateBlocks: true,
          maxBlocksPerHost: 0,
          ipCooldownSeconds: 0,
        },
      });
      const pool: IPPool = {
        metadata: { name: 'pool-a' },
        spec: { cidr: '10.0.0.0/16', blockSize: 26 },
      };
      await ds.create({ key: { kind: 'IPPool', name: 'pool-a' }, value: pool });

      const pairs = etcdctlGetPrefix(etcd.endpoints, '/calico');
      expect(pairs.map(([k]) => k)).toEqual([
        '/calico/ipam/v2/assignment/ipv4/block/10.0.0.0-26',
        '/calico/ipam/v2/assignment/ipv6/block/fd80:24e2:f998:72d6::-122',
        '/calico/ipam/v2/config',
        '/calico/ipam/v2/handle/k8s-pod-network.abc',
        '/calico/ipam/v2/host/node1/ipv4/block/10.0.0.0-26',
        '/calico/resources/v3/projectcalico.org/ippools/pool-a',
      ]);
      const value = new Map(pairs);
      const blockText = value.get('/calico/ipam/v2/assignment/ipv4/block/10.0.0.0-26')!;
      expect(Object.keys(JSON.parse(blockText) as object)).toEqual([
        'cidr',
        'affinity',
        'allocations',
        'unallocated',
        'attributes',
        'sequenceNumber',
        'sequenceNumberForAllocation',
        'deleted',
      ]);
      // Go writes uint64 as a bare integer: the digits must survive exactly (JSON.parse would round them).
      expect(blockText).toContain(`"sequenceNumber":${BIG_SEQUENCE}`);
      expect(blockText).toContain(`"sequenceNumberForAllocation":{"0":${BIG_SEQUENCE}}`);
      expect(blockText).toContain(
        '"attributes":[{"handle_id":"k8s-pod-network.abc","secondary":{"namespace":"default","node":"node1","pod":"p1"}}]',
      );
      expect(value.get('/calico/ipam/v2/host/node1/ipv4/block/10.0.0.0-26')).toBe(
        '{"state":"confirmed","deleted":false}',
      );
      expect(value.get('/calico/ipam/v2/handle/k8s-pod-network.abc')).toBe(
        '{"block":{"10.0.0.0/26":1},"deleted":false}',
      );
      expect(value.get('/calico/ipam/v2/config')).toBe(
        '{"strict_affinity":true,"auto_allocate_blocks":true}',
      );
      expect(
        JSON.parse(value.get('/calico/resources/v3/projectcalico.org/ippools/pool-a')!),
      ).toEqual({
        kind: 'IPPool',
        apiVersion: 'projectcalico.org/v3',
        metadata: { name: 'pool-a' },
        spec: { cidr: '10.0.0.0/16', blockSize: 26 },
      });
    });

    it('gives etcd mod revisions as decimal strings, the same etcdctl shows', async () => {
      const kv = await ds.create({
        key: { kind: 'IPAMHandle', handleId: 'h' },
        value: { handleId: 'h', block: {}, deleted: false },
      });
      const shown = JSON.parse(
        etcdctl(etcd.endpoints, ['get', '/calico/ipam/v2/handle/h', '-w', 'json']),
      ) as {
        kvs: { mod_revision: number; create_revision: number }[];
      };
      expect(kv.revision).toMatch(/^[1-9][0-9]*$/);
      expect(kv.revision).toBe(String(shown.kvs[0]!.mod_revision));
      expect(kv.uid).toBe(String(shown.kvs[0]!.create_revision));
    });
  });

  describe('values that are not valid Calico JSON', () => {
    const path = '/calico/ipam/v2/assignment/ipv4/block/10.0.1.0-26';

    it.each([
      ['not JSON', 'hello'],
      ['a wrong field type', '{"cidr":5}'],
      ['a bad ordinal', '{"cidr":"10.0.1.0/26","allocations":["x"]}'],
    ])('get and list fail CorruptValue naming the key (%s)', async (_what, raw) => {
      etcdctl(etcd.endpoints, [
        'put',
        '/calico/ipam/v2/assignment/ipv4/block/10.0.0.0-26',
        CALICO_BLOCK,
      ]);
      etcdctl(etcd.endpoints, ['put', path, raw]);
      const got = await ds.get({ kind: 'IPAMBlock', cidr: '10.0.1.0/26' }).catch((e: unknown) => e);
      expect(got).toBeInstanceOf(IpamError);
      expect(got).toMatchObject({ code: 'CorruptValue', identifier: path });
      expect((got as IpamError).message).toContain(path);
      const listed = await ds.list({ kind: 'IPAMBlock' }).catch((e: unknown) => e);
      expect(listed).toMatchObject({ code: 'CorruptValue', identifier: path });
      // The good block next to it still reads.
      await expect(ds.get({ kind: 'IPAMBlock', cidr: '10.0.0.0/26' })).resolves.toMatchObject({
        value: { cidr: '10.0.0.0/26' },
      });
    });

    it('a watch fails CorruptValue naming the key', async () => {
      const { revision } = await ds.list({ kind: 'IPAMBlock' });
      const stream = ds.watch({ kind: 'IPAMBlock' }, { revision });
      etcdctl(etcd.endpoints, ['put', path, '{"cidr":5}']);
      const seen: unknown[] = [];
      const err = await (async () => {
        for await (const e of stream) seen.push(e);
      })().catch((e: unknown) => e);
      expect(seen).toEqual([]);
      expect(err).toMatchObject({ code: 'CorruptValue', identifier: path });
    });
  });
});
