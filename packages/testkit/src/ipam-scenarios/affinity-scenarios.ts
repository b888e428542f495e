import { describe, expect, it } from 'vitest';
import type { EnvAccessor } from './harness.js';
import { addressOf, blockOf, expectIpamError } from './harness.js';

const HOST = { affinityType: 'host', host: 'host-a' } as const;

/** §5.2 items 33-38: claiming and releasing block affinities. */
export function describeAffinityScenarios(env: EnvAccessor): void {
  describe('affinity management', () => {
    it.each(['releaseAffinity', 'releaseBlockAffinity'] as const)(
      '33: %s with mustBeEmpty releases only an empty block (and deletes it)',
      async (how) => {
        const e = env();
        await e.pool('pool1', '10.0.0.0/24', { blockSize: 30 });
        await e.node('host-a');
        const r = await e.client.autoAssign({
          num4: 1,
          hostname: 'host-a',
          handleId: 'h1',
          intendedUse: 'Workload',
        });
        const cidr = blockOf(r.v4.ips[0]!, 30);
        const release = () =>
          how === 'releaseAffinity'
            ? e.client.releaseAffinity(cidr, 'host-a', { mustBeEmpty: true })
            : e.client.releaseBlockAffinity(cidr, { mustBeEmpty: true });
        await expectIpamError(release(), 'BlockNotEmpty');
        expect(await e.affinities('host-a')).toEqual([
          { cidr, host: 'host-a', type: 'host', state: 'confirmed' },
        ]);
        await e.client.releaseByHandle('h1');
        expect(await e.blocks()).toHaveLength(1);
        await release();
        expect(await e.affinities('host-a')).toEqual([]);
        expect(await e.blocks()).toEqual([]);
      },
    );

    it('33: addresses in cooldown keep a block non-empty until the clock passes them', async () => {
      const e = env();
      await e.pool('pool1', '10.0.0.0/24', { blockSize: 30 });
      await e.node('host-a');
      await e.setConfig({ ipCooldownSeconds: 120 });
      const r = await e.client.autoAssign({
        num4: 1,
        hostname: 'host-a',
        handleId: 'h1',
        intendedUse: 'Workload',
      });
      const cidr = blockOf(r.v4.ips[0]!, 30);
      await e.client.releaseByHandle('h1');
      await expectIpamError(
        e.client.releaseAffinity(cidr, 'host-a', { mustBeEmpty: true }),
        'BlockNotEmpty',
      );
      e.clock.advance(120_000);
      await e.client.releaseAffinity(cidr, 'host-a', { mustBeEmpty: true });
      expect(await e.blocks()).toEqual([]);
      expect(await e.affinities()).toEqual([]);
    });

    it('34: releasePoolAffinities removes a confirmed affinity and its empty block', async () => {
      const e = env();
      await e.pool('pool1', '10.0.0.0/24');
      await e.node('host-a');
      await expect(e.client.claimAffinity('10.0.0.0/26', HOST)).resolves.toEqual({
        claimed: ['10.0.0.0/26'],
        failed: [],
      });
      expect(await e.affinities('host-a')).toMatchObject([{ state: 'confirmed' }]);
      await e.client.releasePoolAffinities('10.0.0.0/16');
      expect(await e.affinities()).toEqual([]);
      expect(await e.blocks()).toEqual([]);
    });

    it('35: releaseHostAffinities(mustBeEmpty) releases the empty blocks and reports the busy one', async () => {
      const e = env();
      await e.pool('pool1', '10.0.0.0/24', { blockSize: 30 });
      await e.node('host-a');
      const r = await e.client.autoAssign({
        num4: 12,
        hostname: 'host-a',
        handleId: 'h1',
        intendedUse: 'Workload',
      });
      expect(new Set(r.v4.ips.map((ip) => blockOf(ip, 30))).size).toBe(3);
      await e.client.releaseByHandle('h1');
      expect(await e.blocks()).toHaveLength(3);
      const again = await e.client.autoAssign({
        num4: 1,
        hostname: 'host-a',
        intendedUse: 'Workload',
      });
      await expectIpamError(
        e.client.releaseHostAffinities(HOST, { mustBeEmpty: true }),
        'BlockNotEmpty',
      );
      const blocks = await e.blocks();
      expect(blocks.map((b) => b.cidr)).toEqual([blockOf(again.v4.ips[0]!, 30)]);
      expect(await e.affinities('host-a')).toHaveLength(1);
    });

    it('36: after the pool is deleted, blocks outlive the affinities until their addresses go', async () => {
      const e = env();
      await e.pool('pool1', '10.0.0.0/24', { blockSize: 30 });
      await e.node('host-a');
      const r = await e.client.autoAssign({
        num4: 13,
        hostname: 'host-a',
        handleId: 'h1',
        intendedUse: 'Workload',
      });
      const lone = r.v4.ips.find(
        (ip) => r.v4.ips.filter((o) => blockOf(o, 30) === blockOf(ip, 30)).length === 1,
      )!;
      expect(await e.blocks()).toHaveLength(4);
      await e.client.pools.delete('pool1');
      // Outside every pool now: found by its block, and the emptied unaffine block goes.
      await expect(e.client.releaseIps([{ address: addressOf(lone) }])).resolves.toMatchObject({
        unallocated: [],
      });
      await e.client.releaseHostAffinities(HOST, { mustBeEmpty: false });
      expect(await e.affinities()).toEqual([]);
      const blocks = await e.blocks();
      expect(blocks).toHaveLength(3);
      expect(blocks.every((b) => b.affinity === undefined)).toBe(true);
      await e.client.releaseByHandle('h1');
      expect(await e.blocks()).toEqual([]);
    });

    describe('37: ClaimAffinity', () => {
      it('claims one block, and refuses a CIDR smaller than a block', async () => {
        const e = env();
        await e.pool('pool1', '192.168.1.0/24');
        await expect(e.client.claimAffinity('192.168.1.0/26', HOST)).resolves.toEqual({
          claimed: ['192.168.1.0/26'],
          failed: [],
        });
        const err = await expectIpamError(
          e.client.claimAffinity('192.168.1.0/27', HOST),
          'InvalidArgument',
        );
        expect(err.message).toBe(
          'The requested CIDR (192.168.1.0/27) is smaller than the minimum.',
        );
        await expectIpamError(e.client.claimAffinity('172.16.0.0/26', HOST), 'InvalidArgument');
      });

      it('fails the block another host holds', async () => {
        const e = env();
        await e.pool('pool1', '10.0.0.0/24');
        await e.node('host-a');
        await e.client.assignIp({ ip: '10.0.0.1', hostname: 'host-a' });
        const r = await e.client.claimAffinity('10.0.0.0/24', {
          affinityType: 'host',
          host: 'host-b',
        });
        expect(r.claimed).toHaveLength(3);
        expect(r.failed).toEqual(['10.0.0.0/26']);
      });

      it('claims a whole pool, idempotently, and then fails it for another host', async () => {
        const e = env();
        await e.pool('pool1', '10.0.0.0/24');
        const all = ['10.0.0.0/26', '10.0.0.64/26', '10.0.0.128/26', '10.0.0.192/26'];
        await expect(e.client.claimAffinity('10.0.0.0/24', HOST)).resolves.toEqual({
          claimed: all,
          failed: [],
        });
        await expect(e.client.claimAffinity('10.0.0.0/24', HOST)).resolves.toEqual({
          claimed: all,
          failed: [],
        });
        await expect(
          e.client.claimAffinity('10.0.0.0/24', { affinityType: 'host', host: 'host-b' }),
        ).resolves.toEqual({ claimed: [], failed: all });
        expect(await e.affinities('host-b')).toEqual([]);
      });
    });

    it('38: long hostnames sharing a prefix get distinct affinities', async () => {
      const e = env();
      await e.pool('pool6', 'fd00:1::/120');
      const long = 'a'.repeat(252);
      const variant = `${'a'.repeat(251)}b`;
      for (const host of [long, variant]) {
        await e.node(host);
        const r = await e.client.autoAssign({
          num4: 0,
          num6: 1,
          hostname: host,
          intendedUse: 'Workload',
        });
        expect(r.v6.ips).toHaveLength(1);
      }
      const v6 = (await e.ds.list({ kind: 'BlockAffinity', ipVersion: 6 })).items;
      expect(v6).toHaveLength(2);
      expect(await e.affinities(long)).toEqual([expect.objectContaining({ host: long })]);
      expect(await e.affinities(variant)).toEqual([expect.objectContaining({ host: variant })]);
      expect(addressOf((await e.affinities(long))[0]!.cidr)).not.toBe(
        addressOf((await e.affinities(variant))[0]!.cidr),
      );
    });

    it('48: host and virtual affinities of one hostname live side by side and release independently', async () => {
      const e = env();
      await e.pool('pool1', '10.1.0.0/16');
      const virtual = { affinityType: 'virtual', host: 'host-a' } as const;
      expect(await e.client.claimAffinity('10.1.0.0/26', HOST)).toEqual({
        claimed: ['10.1.0.0/26'],
        failed: [],
      });
      expect(await e.client.claimAffinity('10.1.1.0/26', virtual)).toEqual({
        claimed: ['10.1.1.0/26'],
        failed: [],
      });
      // Claiming again is idempotent for the owner, and each block is refused to the other type.
      expect(await e.client.claimAffinity('10.1.0.0/26', HOST)).toEqual({
        claimed: ['10.1.0.0/26'],
        failed: [],
      });
      expect(await e.client.claimAffinity('10.1.0.0/26', virtual)).toEqual({
        claimed: [],
        failed: ['10.1.0.0/26'],
      });
      expect(await e.affinities('host-a')).toEqual([
        { cidr: '10.1.0.0/26', host: 'host-a', type: 'host', state: 'confirmed' },
        { cidr: '10.1.1.0/26', host: 'host-a', type: 'virtual', state: 'confirmed' },
      ]);
      expect((await e.block('10.1.1.0/26')).affinity).toBe('virtual:host-a');
      await e.client.releaseBlockAffinity('10.1.1.0/26', { mustBeEmpty: true });
      expect(await e.affinities('host-a')).toEqual([
        { cidr: '10.1.0.0/26', host: 'host-a', type: 'host', state: 'confirmed' },
      ]);
      await e.client.releaseAffinity('10.1.0.0/26', 'host-a', { mustBeEmpty: true });
      expect(await e.affinities('host-a')).toEqual([]);
      expect(await e.blocks()).toEqual([]);
      await expectIpamError(
        e.client.releaseBlockAffinity('10.1.1.0/26', { mustBeEmpty: true }),
        'DoesNotExist',
      );
    });
  });
}
