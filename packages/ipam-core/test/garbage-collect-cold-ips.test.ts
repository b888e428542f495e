import { describe, expect, it } from 'vitest';
import { blockKey } from '../src/client/block-reader-writer.js';
import { createTestCluster } from './test-cluster.js';

// §5.2 item 56 (garbage_collect_test.go), through the client and the interleaving wrapper.
describe('garbageCollectColdIps', () => {
  async function coldAndLive(cooldownSeconds: number) {
    const c = await createTestCluster({
      pools: [{ cidr: '10.0.0.0/26', blockSize: 26 }],
      hosts: ['a'],
      ipCooldownSeconds: 30,
    });
    const client = c.client();
    const { v4 } = await client.autoAssign({
      num4: 2,
      hostname: 'a',
      handleId: 'h',
      intendedUse: 'Workload',
    });
    const [cold, live] = v4.ips.map((ip) => ip.split('/')[0]!);
    await client.releaseIps([{ address: cold! }]);
    c.clock.advance(3_600_000);
    if (cooldownSeconds !== 30) {
      await client.setIpamConfig({
        ...(await client.getIpamConfig()),
        ipCooldownSeconds: cooldownSeconds,
      });
    }
    return { c, client, cold: cold!, live: live! };
  }

  it('frees a cold address in exactly one CAS write at the revision read', async () => {
    const { c, client, cold, live } = await coldAndLive(30);
    const before = await c.store.get(blockKey('10.0.0.0/26'));
    const updates = c.ds.count('update', 'IPAMBlock');
    expect(await client.garbageCollectColdIps('10.0.0.0/26')).toBe(true);
    expect(c.ds.count('update', 'IPAMBlock')).toBe(updates + 1);
    expect(c.ds.log.at(-1)).toMatchObject({
      op: 'update',
      kind: 'IPAMBlock',
      revision: before.revision,
    });

    const after = await c.store.get(blockKey('10.0.0.0/26'));
    expect(after.uid).toBe(before.uid);
    const coldOrdinal = Number(cold.split('.')[3]);
    expect(after.value.allocations[coldOrdinal]).toBeNull();
    expect(after.value.unallocated).toContain(coldOrdinal);
    expect(after.value.attributes).toHaveLength(1);
    expect(after.value.sequenceNumber).toBe(before.value.sequenceNumber + 1n);
    expect(await client.ipsByHandle('h')).toEqual([live]);

    expect(await client.garbageCollectColdIps('10.0.0.0/26')).toBe(false);
    expect(c.ds.count('update', 'IPAMBlock')).toBe(updates + 1);
  });

  it('writes nothing while the address is still cooling (cooldown 100000 s is capped, so 1200 s)', async () => {
    const { c, client } = await coldAndLive(1200);
    c.clock.advance(-3_600_000 + 1_000);
    const updates = c.ds.count('update', 'IPAMBlock');
    expect(await client.garbageCollectColdIps('10.0.0.0/26')).toBe(false);
    expect(c.ds.count('update', 'IPAMBlock')).toBe(updates);
  });

  it('a missing block is DoesNotExist', async () => {
    const { client } = await coldAndLive(30);
    await expect(client.garbageCollectColdIps('10.0.0.64/26')).rejects.toMatchObject({
      code: 'DoesNotExist',
    });
  });
});
