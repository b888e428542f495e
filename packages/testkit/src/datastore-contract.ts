import type { Datastore, DatastoreKey, KVPair, WatchEvent } from '@netledger/ipam-core';
import { IpamError } from '@netledger/ipam-core';
import { keyToPath } from '@netledger/ipam-core/adapter';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BIG_SEQUENCE, BlockBuilder, buildPool } from './builders.js';

/** What an adapter under test provides to {@link describeDatastoreContract}. */
export interface ContractTarget {
  /** A store with no objects in it (a fresh one, or one the harness wiped). */
  open(): Promise<Datastore>;
  /** Called once after all tests. */
  teardown?(): Promise<void>;
  /** `path`: lists come back in etcd key order; `name`: in Kubernetes name order. */
  readonly listOrder?: 'path' | 'name';
  /** False for a store that does not offer `listMany` (callers then fall back to `list`). */
  readonly listMany?: boolean;
  /** False for a store that does not offer `transact` (callers then write one object at a time). */
  readonly transact?: boolean;
}

const blockKey = (cidr: string): DatastoreKey<'IPAMBlock'> => ({ kind: 'IPAMBlock', cidr });
const handleKey = (handleId: string): DatastoreKey<'IPAMHandle'> => ({
  kind: 'IPAMHandle',
  handleId,
});
const affinityKey = (host: string, cidr: string, affinityType: 'host' | 'virtual' = 'host') =>
  ({ kind: 'BlockAffinity', host, cidr, affinityType }) as const;

async function expectCode(p: Promise<unknown>, code: IpamError['code']): Promise<void> {
  await expect(p).rejects.toBeInstanceOf(IpamError);
  await expect(p).rejects.toMatchObject({ code });
}

async function collect(events: AsyncIterable<WatchEvent>, n: number): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  for await (const e of events) {
    out.push(e);
    if (out.length === n) break;
  }
  return out;
}

/**
 * The Datastore contract: every adapter (memory, file, etcd, Kubernetes) runs this suite.
 * It pins CAS semantics, error codes, list order and filters, value fidelity, and watch.
 */
export function describeDatastoreContract(name: string, target: ContractTarget): void {
  describe(`Datastore contract: ${name}`, () => {
    let ds: Datastore;
    beforeEach(async () => {
      ds = await target.open();
    });
    afterEach(async () => {
      await ds.close();
    });
    afterAll(async () => {
      await target.teardown?.();
    });
    beforeAll(() => undefined);

    it('creates, reads back exactly (uint64 sequence numbers intact), and refuses a second create', async () => {
      const block = new BlockBuilder('10.0.0.0/30')
        .affine('node1')
        .allocate([0], 'h1', { pod: 'p' })
        .build();
      const created = await ds.create({ key: blockKey('10.0.0.0/30'), value: block });
      const got = await ds.get(blockKey('10.0.0.0/30'));
      expect(got.revision).toBe(created.revision);
      expect(got.value).toEqual(block);
      expect(got.value.sequenceNumber).toBe(BIG_SEQUENCE);
      await expectCode(ds.create({ key: blockKey('10.0.0.0/30'), value: block }), 'AlreadyExists');
    });

    it('updates only at the current revision', async () => {
      const v1 = await ds.create({
        key: handleKey('h1'),
        value: { handleId: 'h1', block: { '10.0.0.0/26': 1 }, deleted: false },
      });
      const v2 = await ds.update({ ...v1, value: { ...v1.value, block: { '10.0.0.0/26': 2 } } });
      expect(v2.revision).not.toBe(v1.revision);
      await expectCode(
        ds.update({ ...v1, value: { ...v1.value, block: { '10.0.0.0/26': 9 } } }),
        'UpdateConflict',
      );
      expect((await ds.get(handleKey('h1'))).value.block).toEqual({ '10.0.0.0/26': 2 });
      await expectCode(ds.update({ ...v1, key: handleKey('nope') }), 'DoesNotExist');
    });

    it('deletes with and without a revision precondition', async () => {
      const v1 = await ds.create({
        key: handleKey('h1'),
        value: { handleId: 'h1', block: {}, deleted: false },
      });
      const v2 = await ds.update(v1);
      await expectCode(ds.delete(handleKey('h1'), { revision: v1.revision }), 'UpdateConflict');
      await ds.delete(handleKey('h1'), { revision: v2.revision });
      await expectCode(ds.get(handleKey('h1')), 'DoesNotExist');
      await expectCode(ds.delete(handleKey('h1')), 'DoesNotExist');
      await ds.create({
        key: handleKey('h2'),
        value: { handleId: 'h2', block: {}, deleted: false },
      });
      await ds.delete(handleKey('h2'));
      await expectCode(ds.get(handleKey('h2')), 'DoesNotExist');
    });

    it('applies as an upsert', async () => {
      const key = { kind: 'IPAMConfig' } as const;
      const a = await ds.apply({
        key,
        value: {
          strictAffinity: true,
          autoAllocateBlocks: true,
          maxBlocksPerHost: 4,
          ipCooldownSeconds: 30,
        },
      });
      const b = await ds.apply({
        key,
        value: {
          strictAffinity: false,
          autoAllocateBlocks: true,
          maxBlocksPerHost: 0,
          ipCooldownSeconds: 0,
        },
      });
      expect(b.revision).not.toBe(a.revision);
      expect((await ds.get(key)).value).toMatchObject({
        strictAffinity: false,
        ipCooldownSeconds: 0,
      });
    });

    it('round-trips resources and every IPAM kind', async () => {
      const pool = buildPool('pool-a', 'fd80:24e2:f998:72d6::/120', {
        blockSize: 122,
        allowedUses: ['Workload'],
        ipipMode: 'Never',
      });
      await ds.create({ key: { kind: 'IPPool', name: 'pool-a' }, value: pool });
      expect((await ds.get({ kind: 'IPPool', name: 'pool-a' })).value).toEqual(pool);
      const res = {
        metadata: { name: 'r1' },
        spec: { reservedCIDRs: ['10.0.0.1', '10.0.1.0/28'] },
      };
      await ds.create({ key: { kind: 'IPReservation', name: 'r1' }, value: res });
      expect((await ds.get({ kind: 'IPReservation', name: 'r1' })).value).toEqual(res);
      // Go writes a Node's spec and status structs even when empty, so a Node reads back with both.
      const node = { metadata: { name: 'node1', labels: { zone: 'a' } }, spec: {}, status: {} };
      await ds.create({ key: { kind: 'Node', name: 'node1' }, value: node });
      expect((await ds.get({ kind: 'Node', name: 'node1' })).value).toEqual(node);
      await ds.create({
        key: affinityKey('node1', '10.0.0.0/26'),
        value: { state: 'pending', deleted: false },
      });
      expect((await ds.get(affinityKey('node1', '10.0.0.0/26'))).value).toEqual({
        state: 'pending',
        deleted: false,
      });
      const v6 = new BlockBuilder('fd80:24e2:f998:72d6::/126')
        .affine('node1')
        .allocate([1, 3], 'Mixed.Case')
        .build();
      await ds.create({ key: blockKey('fd80:24e2:f998:72d6::/126'), value: v6 });
      expect((await ds.get(blockKey('fd80:24e2:f998:72d6::/126'))).value).toEqual(v6);
      await ds.create({
        key: handleKey('Mixed.Case'),
        value: {
          handleId: 'Mixed.Case',
          block: { 'fd80:24e2:f998:72d6::/126': 2 },
          deleted: false,
        },
      });
      expect((await ds.get(handleKey('Mixed.Case'))).value.handleId).toBe('Mixed.Case');
    });

    it('lists in a stable order, filtered by kind, host, type and version', async () => {
      const cidrs = ['10.0.0.64/26', '10.0.0.128/26', '10.0.0.0/26', 'fd00::/122'];
      for (const c of cidrs)
        await ds.create({
          key: blockKey(c),
          // A block's cidr is its key's: stores that decode what they write refuse any other.
          value: new BlockBuilder(c).build(),
        });
      for (const [host, c, t] of [
        ['node1', '10.0.0.0/26', 'host'],
        ['node10', '10.0.0.64/26', 'host'],
        ['node1', 'fd00::/122', 'host'],
        ['load-balancer', '10.0.0.128/26', 'virtual'],
      ] as const) {
        await ds.create({
          key: affinityKey(host, c, t),
          value: { state: 'confirmed', deleted: false },
        });
      }
      const all = await ds.list({ kind: 'IPAMBlock' });
      const names = all.items.map((kv) => kv.key.cidr);
      expect(new Set(names)).toEqual(new Set(cidrs));
      if ((target.listOrder ?? 'path') === 'path') {
        const paths = all.items.map((kv) => keyToPath(kv.key));
        expect(paths).toEqual([...paths].sort());
        expect(names.slice(0, 3)).toEqual(['10.0.0.0/26', '10.0.0.128/26', '10.0.0.64/26']);
      }
      expect((await ds.list({ kind: 'IPAMBlock' })).items.map((kv) => kv.key.cidr)).toEqual(names);
      expect(
        (await ds.list({ kind: 'IPAMBlock', ipVersion: 6 })).items.map((kv) => kv.key.cidr),
      ).toEqual(['fd00::/122']);
      const node1 = await ds.list({ kind: 'BlockAffinity', host: 'node1' });
      expect(node1.items.map((kv) => kv.key.cidr).sort()).toEqual(['10.0.0.0/26', 'fd00::/122']);
      const node1v4 = await ds.list({ kind: 'BlockAffinity', host: 'node1', ipVersion: 4 });
      expect(node1v4.items.map((kv) => kv.key.cidr)).toEqual(['10.0.0.0/26']);
      const virtual = await ds.list({ kind: 'BlockAffinity', affinityType: 'virtual' });
      expect(virtual.items.map((kv) => kv.key.host)).toEqual(['load-balancer']);
      expect((await ds.list({ kind: 'BlockAffinity' })).items).toHaveLength(4);
      expect((await ds.list({ kind: 'IPAMHandle' })).items).toEqual([]);
    });

    it('listMany, where offered, equals separate lists and reads one revision', async () => {
      await ds.create({ key: { kind: 'IPPool', name: 'a' }, value: buildPool('a', '10.0.0.0/16') });
      await ds.create({
        key: affinityKey('node1', '10.0.0.0/26'),
        value: { state: 'confirmed', deleted: false },
      });
      await ds.create({
        key: affinityKey('node1', 'fd00::/122'),
        value: { state: 'pending', deleted: false },
      });
      await ds.create({
        key: affinityKey('node10', '10.0.0.64/26'),
        value: { state: 'confirmed', deleted: false },
      });
      const options = [
        { kind: 'IPPool' },
        { kind: 'IPAMConfig' },
        { kind: 'BlockAffinity', host: 'node1', affinityType: 'host' },
      ] as const;
      if (target.listMany === false) {
        expect(ds.listMany).toBeUndefined();
        return;
      }
      expect(ds.listMany).toBeTypeOf('function');
      const many = await ds.listMany!(options);
      const separate = await Promise.all(options.map((o) => ds.list(o)));
      expect(many.map((r) => r.items)).toEqual(separate.map((r) => r.items));
      expect(many[2]!.items.map((kv) => keyToPath(kv.key))).toEqual([
        '/calico/ipam/v2/host/node1/ipv4/block/10.0.0.0-26',
        '/calico/ipam/v2/host/node1/ipv6/block/fd00::-122',
      ]);
      expect(new Set(many.map((r) => r.revision)).size).toBe(1);
    });

    it("transact, where offered, writes all or nothing and raises the failing write's error", async () => {
      if (target.transact === false) {
        expect(ds.transact).toBeUndefined();
        return;
      }
      expect(ds.transact).toBeTypeOf('function');
      const block = new BlockBuilder('10.0.0.0/30').build();
      const handle = { handleId: 'h', block: { '10.0.0.0/30': 1 }, deleted: false };
      const [h, b] = await ds.transact!([
        { op: 'create', kv: { key: handleKey('h'), value: handle } },
        { op: 'create', kv: { key: blockKey('10.0.0.0/30'), value: block } },
      ]);
      expect(h!.value).toEqual(handle);
      expect(b!.value).toEqual(block);
      expect((await ds.get(handleKey('h'))).revision).toBe(h!.revision);
      expect((await ds.get(blockKey('10.0.0.0/30'))).revision).toBe(b!.revision);
      const untouched = async (): Promise<void> => {
        await expectCode(ds.get(handleKey('other')), 'DoesNotExist');
        expect((await ds.get(handleKey('h'))).revision).toBe(h!.revision);
      };
      const fresh = { op: 'create', kv: { key: handleKey('other'), value: handle } } as const;
      // A stale revision, an existing key, a missing key: the error of the write that fails.
      await expectCode(
        ds.transact!([
          fresh,
          { op: 'update', kv: { ...b!, revision: String(Number(b!.revision) + 1000) } },
        ]),
        'UpdateConflict',
      );
      await untouched();
      await expectCode(ds.transact!([fresh, { op: 'create', kv: h! }]), 'AlreadyExists');
      await untouched();
      await expectCode(
        ds.transact!([fresh, { op: 'delete', key: handleKey('missing') }]),
        'DoesNotExist',
      );
      await untouched();
      await expectCode(
        ds.transact!([fresh, { op: 'update', kv: { ...fresh.kv, revision: h!.revision } }]),
        'InvalidArgument',
      );
      await untouched();
      // Updates and a delete at the revisions read; the results carry the new revisions.
      const [nextBlock, gone] = await ds.transact!([
        { op: 'update', kv: { ...b!, value: new BlockBuilder('10.0.0.0/30').build() } },
        { op: 'delete', key: handleKey('h'), options: { revision: h!.revision } },
      ]);
      expect(gone).toBeUndefined();
      await expectCode(ds.get(handleKey('h')), 'DoesNotExist');
      expect(nextBlock!.revision).not.toBe(b!.revision);
      expect((await ds.get(blockKey('10.0.0.0/30'))).revision).toBe(nextBlock!.revision);
      await expectCode(ds.update(b!), 'UpdateConflict');
    });

    it('loses no update when many writers race compare-and-swap increments on one key', async () => {
      const key = handleKey('counter');
      await ds.create({ key, value: { handleId: 'counter', block: { n: 0 }, deleted: false } });
      const writers = 8;
      const perWriter = 15;
      const increment = async (): Promise<void> => {
        for (;;) {
          const kv = await ds.get(key);
          try {
            await ds.update({ ...kv, value: { ...kv.value, block: { n: kv.value.block.n! + 1 } } });
            return;
          } catch (e) {
            if (!(e instanceof IpamError) || e.code !== 'UpdateConflict') throw e;
          }
        }
      };
      await Promise.all(
        Array.from({ length: writers }, async () => {
          for (let i = 0; i < perWriter; i++) await increment();
        }),
      );
      expect((await ds.get(key)).value.block.n).toBe(writers * perWriter);
    });

    it('watches changes after a list revision, including deletes', async () => {
      await ds.create({
        key: handleKey('before'),
        value: { handleId: 'before', block: {}, deleted: false },
      });
      const { revision } = await ds.list({ kind: 'IPAMHandle' });
      const stream = ds.watch({ kind: 'IPAMHandle' }, { revision });
      const seen = collect(stream, 3);
      const a = await ds.create({
        key: handleKey('a'),
        value: { handleId: 'a', block: {}, deleted: false },
      });
      await ds.create({
        key: blockKey('10.0.0.0/30'),
        value: new BlockBuilder('10.0.0.0/30').build(),
      });
      await ds.update(a);
      await ds.delete(handleKey('a'));
      const events = await seen;
      stream.close();
      expect(events.map((e) => e.type)).toEqual(['added', 'modified', 'deleted']);
      const first = events[0] as Extract<WatchEvent, { kv: KVPair }>;
      expect(first.kv.key).toEqual(handleKey('a'));
      expect(Number(events[2]!.revision)).toBeGreaterThan(Number(events[0]!.revision));
    });

    it('replays from an earlier revision', async () => {
      const first = await ds.create({
        key: handleKey('x'),
        value: { handleId: 'x', block: {}, deleted: false },
      });
      await ds.create({ key: handleKey('y'), value: { handleId: 'y', block: {}, deleted: false } });
      const stream = ds.watch({ kind: 'IPAMHandle' }, { revision: first.revision });
      const events = await collect(stream, 1);
      stream.close();
      expect(events[0]).toMatchObject({ type: 'added', kv: { key: handleKey('y') } });
    });
  });
}
