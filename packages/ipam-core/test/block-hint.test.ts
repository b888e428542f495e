import { describe, expect, it } from 'vitest';
import { blockKey } from '../src/client/block-reader-writer.js';
import type { IpamClient } from '../src/client/ipam-client.js';
import { createMirroredDatastore } from '../src/datastore/mirrored-datastore.js';
import { createIpamClient } from '../src/client/ipam-client.js';
import { createTestCluster, createSeededRandom } from './test-cluster.js';

const addressOf = (ipWithMask: string) => ipWithMask.split('/')[0]!;
const ordinalOf = (ip: string) => Number(addressOf(ip).split('.')[3]) % 64;
const assign = (client: IpamClient, handleId: string, num4 = 1) =>
  client.autoAssign({ num4, hostname: 'a', handleId, intendedUse: 'Workload' });

async function cluster() {
  return createTestCluster({ pools: [{ cidr: '10.0.0.0/24', blockSize: 26 }], hosts: ['a'] });
}

describe('last-written-block hint (autoAssign)', () => {
  it('after the first assign, an assign into the affine block reads no block: one CAS each', async () => {
    const c = await cluster();
    const a = c.client();
    await assign(a, 'h0');
    const gets = c.ds.count('get', 'IPAMBlock');
    const updates = c.ds.count('update', 'IPAMBlock');
    const ips: string[] = [];
    for (let i = 1; i <= 5; i++) ips.push(...(await assign(a, `h${i}`)).v4.ips);
    expect(c.ds.count('get', 'IPAMBlock')).toBe(gets);
    expect(c.ds.count('update', 'IPAMBlock')).toBe(updates + 5);
    expect(new Set(ips).size).toBe(5);
    expect(await c.affinities()).toHaveLength(1);
    expect(await c.invariantProblems()).toEqual([]);
  });

  it('over a mirrored store, an assign into an affine block is two round trips: handle, block', async () => {
    const c = await cluster();
    const a = createIpamClient({
      datastore: createMirroredDatastore(c.ds),
      clock: c.clock,
      random: createSeededRandom(7),
    });
    await assign(a, 'h0');
    await assign(a, 'h1');
    const before = c.ds.log.length;
    await assign(a, 'h2');
    expect(c.ds.log.slice(before).map((l) => `${l.op} ${l.kind}`)).toEqual([
      'create IPAMHandle',
      'update IPAMBlock',
    ]);
  });

  it('a block another client wrote since: the stale hint costs one failed CAS, then a fresh read', async () => {
    const c = await cluster();
    const a = c.client();
    const first = (await assign(a, 'h1')).v4.ips[0]!;
    const cidr = (await c.affinities())[0]!.cidr;
    const seeded = (await c.store.get(blockKey(cidr))).value.sequenceNumber - 1n;
    const second = (await assign(c.direct(), 'h2')).v4.ips[0]!; // the other process, same host
    const before = await c.store.get(blockKey(cidr));
    const [gets, updates] = [c.ds.count('get', 'IPAMBlock'), c.ds.count('update', 'IPAMBlock')];

    const third = (await assign(a, 'h3')).v4.ips[0]!;
    expect(new Set([first, second, third]).size).toBe(3);
    expect(c.ds.count('update', 'IPAMBlock')).toBe(updates + 2);
    expect(c.ds.count('get', 'IPAMBlock')).toBe(gets + 1);
    const block = (await c.store.get(blockKey(cidr))).value;
    expect(block.sequenceNumber).toBe(before.value.sequenceNumber + 1n);
    expect(block.sequenceNumberForAllocation).toMatchObject({
      [String(ordinalOf(first))]: seeded,
      [String(ordinalOf(second))]: seeded + 1n,
      [String(ordinalOf(third))]: seeded + 2n,
    });
    // The failed attempt's handle count was taken back.
    expect((await c.store.get({ kind: 'IPAMHandle', handleId: 'h3' })).value.block).toEqual({
      [cidr]: 1,
    });
    expect(await c.affinities()).toHaveLength(1);
    expect(await c.invariantProblems()).toEqual([]);
  });

  it('a block the hint shows full but another client freed: the block is used, no new claim', async () => {
    const c = await createTestCluster({
      pools: [{ cidr: '10.0.0.0/29', blockSize: 30 }],
      hosts: ['a'],
    });
    const a = c.client();
    const { v4 } = await assign(a, 'h1', 4);
    expect(v4.ips).toHaveLength(4);
    const freed = addressOf(v4.ips[2]!);
    await c.direct().releaseIps([{ address: freed }]);
    const claims = c.ds.count('create', 'BlockAffinity');
    const again = await assign(a, 'h2');
    expect(again.v4.ips.map(addressOf)).toEqual([freed]);
    expect(c.ds.count('create', 'BlockAffinity')).toBe(claims); // not even an attempt
    expect(await c.affinities()).toHaveLength(1);
    expect(await c.blocks()).toHaveLength(1);
  });

  it('a hinted block deleted behind the client (affinity left): re-created, no error, no new claim', async () => {
    const c = await cluster();
    const a = c.client();
    await assign(a, 'h1');
    const cidr = (await c.affinities())[0]!.cidr;
    await c.store.delete(blockKey(cidr));
    const { v4 } = await assign(a, 'h2');
    expect(v4.ips).toHaveLength(1);
    expect(v4.msgs).toEqual([]);
    expect((await c.blocks()).map((b) => b.cidr)).toEqual([cidr]);
    expect(await c.affinities()).toMatchObject([{ cidr, state: 'confirmed' }]);
  });

  it('a release through the client updates the hint: the next assign still reads no block', async () => {
    const c = await cluster();
    const a = c.client();
    const { v4 } = await assign(a, 'h1', 2);
    await a.releaseIps([{ address: addressOf(v4.ips[0]!) }]);
    const [gets, updates] = [c.ds.count('get', 'IPAMBlock'), c.ds.count('update', 'IPAMBlock')];
    await assign(a, 'h2');
    expect(c.ds.count('get', 'IPAMBlock')).toBe(gets);
    expect(c.ds.count('update', 'IPAMBlock')).toBe(updates + 1);
  });

  it('read-only operations never answer from the hint', async () => {
    const c = await cluster();
    const a = c.client();
    const [ip, kept] = (await assign(a, 'h1', 2)).v4.ips.map(addressOf);
    await c.direct().releaseIps([{ address: ip! }]);
    await expect(a.getAssignmentAttributes(ip!)).rejects.toMatchObject({ code: 'DoesNotExist' });
    expect(await a.ipsByHandle('h1')).toEqual([kept]);
    const [pool] = await a.getUtilization();
    expect(pool!.inUse).toBe(1);
  });

  it('4 clients of one host assigning at once, round after round: stale hints, distinct addresses', async () => {
    const c = await cluster();
    const clients = [0, 1, 2, 3].map(() => c.client());
    const ips: string[] = [];
    for (let round = 0; round < 5; round++) {
      const got = await Promise.all(clients.map((cl, i) => assign(cl, `r${round}-c${i}`)));
      ips.push(...got.flatMap((r) => r.v4.ips));
    }
    expect(new Set(ips).size).toBe(20);
    expect(await c.affinities()).toHaveLength(1);
    expect(await c.invariantProblems()).toEqual([]);
    const handles = (await c.store.list({ kind: 'IPAMHandle' })).items;
    expect(handles).toHaveLength(20);
    for (const h of handles) expect(Object.values(h.value.block)).toEqual([1]);
  });
});
