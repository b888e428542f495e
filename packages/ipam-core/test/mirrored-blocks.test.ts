import { describe, expect, it, vi } from 'vitest';
import { blockKey } from '../src/client/block-reader-writer.js';
import type { IpamClient } from '../src/client/ipam-client.js';
import { DEFAULT_MIRRORED_KINDS } from '../src/datastore/mirror-scope.js';
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

/**
 * A long-lived client as the node agent runs one: over a watch-fed mirror of the kinds every
 * assignment reads and of the blocks, whose own writes the mirror takes at once.
 */
const mirroredClient = (c: Awaited<ReturnType<typeof cluster>>, seed = 7) =>
  createIpamClient({
    datastore: createMirroredDatastore(c.ds, { kinds: [...DEFAULT_MIRRORED_KINDS, 'IPAMBlock'] }),
    clock: c.clock,
    random: createSeededRandom(seed),
  });

// The client caches nothing itself: a process that wants reads from memory puts a mirror in front
// of the store. Over one that mirrors blocks, an assign sends the store its writes only, and what
// another client writes reaches it through the watch (or through a failed compare-and-swap).
describe('an IPAM client over a mirror of the blocks', () => {
  it('an assign into an affine block sends the store its writes only: the handle and the block', async () => {
    const c = await cluster();
    const a = mirroredClient(c);
    await assign(a, 'h0');
    await assign(a, 'h1');
    const before = c.ds.log.length;
    await assign(a, 'h2');
    expect(c.ds.log.slice(before).map((l) => `${l.op} ${l.kind}`)).toEqual([
      'create IPAMHandle',
      'update IPAMBlock',
    ]);
    expect(await c.invariantProblems()).toEqual([]);
  });

  it('a block another client wrote meanwhile: distinct addresses, the handle counted once', async () => {
    const c = await cluster();
    const a = mirroredClient(c);
    const first = (await assign(a, 'h1')).v4.ips[0]!;
    const cidr = (await c.affinities())[0]!.cidr;
    const second = (await assign(c.direct(), 'h2')).v4.ips[0]!; // the other process, same host
    const third = (await assign(a, 'h3')).v4.ips[0]!;
    expect(new Set([first, second, third]).size).toBe(3);
    const block = (await c.store.get(blockKey(cidr))).value;
    expect(
      Object.keys(block.sequenceNumberForAllocation ?? {})
        .map(Number)
        .sort(),
    ).toEqual([first, second, third].map(ordinalOf).sort());
    expect((await c.store.get({ kind: 'IPAMHandle', handleId: 'h3' })).value.block).toEqual({
      [cidr]: 1,
    });
    expect(await c.affinities()).toHaveLength(1);
    expect(await c.invariantProblems()).toEqual([]);
  });

  it('a block full when last seen but freed by another client: the block is used, no new claim', async () => {
    const c = await createTestCluster({
      pools: [{ cidr: '10.0.0.0/29', blockSize: 30 }],
      hosts: ['a'],
    });
    const a = mirroredClient(c);
    const { v4 } = await assign(a, 'h1', 4);
    expect(v4.ips).toHaveLength(4);
    const freed = addressOf(v4.ips[2]!);
    await c.direct().releaseIps([{ address: freed }]);
    const claims = c.ds.count('create', 'BlockAffinity');
    const again = await assign(a, 'h2');
    expect(again.v4.ips.map(addressOf)).toEqual([freed]);
    expect(c.ds.count('create', 'BlockAffinity')).toBe(claims);
    expect(await c.affinities()).toHaveLength(1);
    expect(await c.blocks()).toHaveLength(1);
  });

  it('an affine block deleted behind the client (affinity left): re-created, no error, no new claim', async () => {
    const c = await cluster();
    const a = mirroredClient(c);
    await assign(a, 'h1');
    const cidr = (await c.affinities())[0]!.cidr;
    await c.store.delete(blockKey(cidr));
    const { v4 } = await assign(a, 'h2');
    expect(v4.ips).toHaveLength(1);
    expect(v4.msgs).toEqual([]);
    expect((await c.blocks()).map((b) => b.cidr)).toEqual([cidr]);
    expect(await c.affinities()).toMatchObject([{ cidr, state: 'confirmed' }]);
  });

  it("read-only operations see another client's release once the watch brought it", async () => {
    const c = await cluster();
    const a = mirroredClient(c);
    const [ip, kept] = (await assign(a, 'h1', 2)).v4.ips.map(addressOf);
    await c.direct().releaseIps([{ address: ip! }]);
    await vi.waitFor(() =>
      expect(a.getAssignmentAttributes(ip!)).rejects.toMatchObject({ code: 'DoesNotExist' }),
    );
    expect(await a.ipsByHandle('h1')).toEqual([kept]);
    const [pool] = await a.getUtilization();
    expect(pool!.inUse).toBe(1);
  });

  it('4 mirrored clients of one host assigning at once, round after round: distinct addresses', async () => {
    const c = await cluster();
    const clients = [0, 1, 2, 3].map((i) => mirroredClient(c, 7 + i));
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
