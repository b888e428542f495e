import type { IpamAssignments } from '@netledger/ipam-core';
import { partialFulfillmentError } from '@netledger/ipam-core';
import { describe, expect, it } from 'vitest';
import type { EnvAccessor } from './harness.js';
import { WINDOWS_RESERVED, expectIpamError } from './harness.js';

/** §5.2 items 59-62 and 65: utilization, reservations, configuration, short-result messages. */
export function describeConfigScenarios(env: EnvAccessor): void {
  describe('config, utilization and reservations', () => {
    it.each([
      { reserved: ['10.0.0.32/30'], pool: [256, 1, 4, 251], block: [64, 1, 4, 59] },
      { reserved: ['10.0.0.128/25'], pool: [256, 1, 128, 127], block: [64, 1, 0, 63] },
      { reserved: ['10.0.0.5/32'], pool: [256, 1, 1, 255], block: [64, 1, 1, 63] },
      {
        reserved: ['10.0.0.0/25', '10.0.0.5/32', '10.0.0.64/26'],
        pool: [256, 1, 128, 128],
        block: [64, 1, 64, 0],
      },
    ])('59: utilization with reservations $reserved', async ({ reserved, pool, block }) => {
      const e = env();
      await e.pool('pool1', '10.0.0.0/24');
      await e.node('host-a');
      await e.client.assignIp({ ip: '10.0.0.5', hostname: 'host-a' });
      await e.reservation('r1', reserved);
      const counts = ([capacity, inUse, rsvd, available]: number[]) => ({
        capacity,
        inUse,
        reserved: rsvd,
        available,
      });
      const [u] = await e.client.getUtilization({ pools: ['pool1'] });
      expect(u).toMatchObject({ name: 'pool1', ...counts(pool) });
      expect(u!.blocks).toEqual([{ cidr: '10.0.0.0/26', ...counts(block) }]);
    });

    it('59: IPv6 blocks outside every pool are reported as orphaned', async () => {
      const e = env();
      await e.pool('pool6', 'fd00:1::/120');
      await e.node('host-a');
      await e.client.assignIp({ ip: 'fd00:1::5', hostname: 'host-a' });
      await e.client.pools.delete('pool6');
      const rows = await e.client.getUtilization();
      const orphans = rows.filter((r) => r.name === 'orphaned allocation blocks');
      expect(orphans.flatMap((r) => r.blocks)).toEqual([
        expect.objectContaining({ cidr: 'fd00:1::/122', inUse: 1 }),
      ]);
    });

    describe('60: reservations during allocation', () => {
      it('takes the whole block without reservations', async () => {
        const e = env();
        await e.pool('pool1', '10.0.0.0/26');
        await e.node('host-a');
        const r = await e.client.autoAssign({
          num4: 64,
          hostname: 'host-a',
          intendedUse: 'Workload',
        });
        expect(r.v4.ips).toHaveLength(64);
      });

      const seed = async () => {
        const e = env();
        await e.pool('pool1', '10.0.0.0/26');
        await e.node('host-a');
        await e.reservation('r1', ['10.0.0.1/32', '10.0.0.32/30']);
        await e.reservation('r2', ['11.0.0.0/30', '10.0.0.17/32']);
        return e;
      };

      it('skips reserved addresses', async () => {
        const e = await seed();
        const r = await e.client.autoAssign({
          num4: 64,
          hostname: 'host-a',
          intendedUse: 'Workload',
        });
        expect(r.v4.ips).toHaveLength(58);
        for (const ip of ['10.0.0.1/26', '10.0.0.17/26', '10.0.0.33/26'])
          expect(r.v4.ips).not.toContain(ip);
      });

      it('skips host-reserved addresses on top (10.0.0.1 is both)', async () => {
        const e = await seed();
        await e.client.ensureBlock({ hostname: 'host-a', hostReservedAttrIPv4s: WINDOWS_RESERVED });
        const r = await e.client.autoAssign({
          num4: 64,
          hostname: 'host-a',
          intendedUse: 'Workload',
        });
        expect(r.v4.ips).toHaveLength(55);
      });
    });

    it('cooldown: a released address is not reused until the (injected) clock passes it', async () => {
      const e = env();
      await e.pool('pool1', '10.0.0.0/30', { blockSize: 30 });
      await e.node('host-a');
      await e.setConfig({ ipCooldownSeconds: 30 });
      const ask = () =>
        e.client.autoAssign({ num4: 1, hostname: 'host-a', intendedUse: 'Workload' });
      const all = await e.client.autoAssign({
        num4: 4,
        hostname: 'host-a',
        intendedUse: 'Workload',
      });
      expect(all.v4.ips).toHaveLength(4);
      await e.client.releaseIps([{ address: '10.0.0.1' }]);
      const cidr = '10.0.0.0/30';
      await expect(e.client.garbageCollectColdIps(cidr)).resolves.toBe(false);
      expect((await ask()).v4.ips).toEqual([]);
      e.clock.advance(29_000);
      expect((await ask()).v4.ips).toEqual([]);
      e.clock.advance(1_000);
      await expect(e.client.garbageCollectColdIps(cidr)).resolves.toBe(true);
      expect((await e.block(cidr)).unallocated).toEqual([1]);
      expect((await ask()).v4.ips).toEqual(['10.0.0.1/30']);
    });

    it('45: an empty block of another host is reclaimed only a minute after its claim', async () => {
      const e = env();
      await e.pool('pool1', '10.0.0.0/26');
      await e.node('host-a');
      await e.node('host-b');
      await e.setConfig({ strictAffinity: true });
      const ask = (host: string) =>
        e.client.autoAssign({ num4: 1, hostname: host, intendedUse: 'Workload' });
      const a = await ask('host-a');
      expect(a.v4.ips).toHaveLength(1);
      expect((await ask('host-b')).v4).toMatchObject({
        ips: [],
        msgs: ['No more free affine blocks and strict affinity enabled'],
      });
      await e.client.releaseIps([{ address: a.v4.ips[0]!.split('/')[0]! }]);
      e.clock.advance(59_000);
      expect((await ask('host-b')).v4.ips).toEqual([]);
      e.clock.advance(2_000);
      expect((await ask('host-b')).v4.ips).toHaveLength(1);
      expect(await e.affinities()).toEqual([expect.objectContaining({ host: 'host-b' })]);
    });

    it('61: the default config is not persisted; a stored one reads back equal', async () => {
      const e = env();
      const defaults = await e.client.getIpamConfig();
      expect(defaults).toMatchObject({ autoAllocateBlocks: true, strictAffinity: false });
      await e.client.getIpamConfig();
      await expectIpamError(e.ds.get({ kind: 'IPAMConfig' }), 'DoesNotExist');
      const stored = { ...defaults, autoAllocateBlocks: false, strictAffinity: true };
      await e.client.setIpamConfig(stored);
      await expect(e.client.getIpamConfig()).resolves.toEqual(stored);
      await expectIpamError(
        e.client.setIpamConfig({ ...defaults, autoAllocateBlocks: false }),
        'ConfigConflict',
      );
      await expectIpamError(
        e.client.setIpamConfig({ ...defaults, maxBlocksPerHost: 2 }),
        'ConfigConflict',
      );
    });

    it('62: borrowing from the one block follows strict affinity as it changes', async () => {
      const e = env();
      await e.pool('pool1', '10.0.0.0/28', { blockSize: 28 });
      await e.node('host1');
      await e.node('host2');
      const ask = (host: string, handleId?: string) =>
        e.client.autoAssign({
          num4: 1,
          hostname: host,
          intendedUse: 'Workload',
          ...(handleId && { handleId }),
        });
      expect((await ask('host1')).v4.ips).toHaveLength(1);
      expect((await ask('host2')).v4.ips).toHaveLength(1);
      await e.setConfig({ strictAffinity: true });
      expect((await ask('host1')).v4.ips).toHaveLength(1);
      const refused = await ask('host2');
      expect(refused.v4.ips).toEqual([]);
      await e.setConfig({ strictAffinity: false });
      expect((await ask('host1')).v4.ips).toHaveLength(1);
      expect((await ask('host2', 'borrowed')).v4.ips).toHaveLength(1);
      await e.client.releaseByHandle('borrowed');
      await expectIpamError(e.client.ipsByHandle('borrowed'), 'DoesNotExist');
    });

    it('62: the block cap under strict affinity: the smaller of request and global wins', async () => {
      const e = env();
      await e.pool('pool1', '10.0.0.0/28', { blockSize: 30 });
      await e.node('host1');
      await e.node('host2');
      await e.setConfig({ strictAffinity: true, maxBlocksPerHost: 2 });
      const ask = (host: string, maxBlocksPerHost?: number) =>
        e.client.autoAssign({
          num4: 1,
          hostname: host,
          intendedUse: 'Workload',
          ...(maxBlocksPerHost !== undefined && { maxBlocksPerHost }),
        });
      for (let i = 0; i < 8; i++) expect((await ask('host1')).v4.ips).toHaveLength(1);
      const capped = async (p: Promise<unknown>) => {
        const err = await expectIpamError(p, 'BlockLimit');
        expect(err.partial).toMatchObject({ v4: { ips: [] } });
      };
      await capped(ask('host1'));
      expect((await ask('host2')).v4.ips).toHaveLength(1);
      await capped(ask('host1'));
      await capped(ask('host1', 3));
      await e.setConfig({ strictAffinity: true, maxBlocksPerHost: 3 });
      await capped(ask('host1', 2));
      expect((await ask('host1')).v4.ips).toHaveLength(1);
    });

    it.each([
      {
        a: {
          ips: [],
          numRequested: 1,
          ipVersion: 4,
          msgs: [
            'Need to allocate an IPAM block but could not - limit of 20 blocks reached for this node',
            'No IPs available in pools: [192.168.0.0/24 192.168.1.0/24]',
          ],
          hostReservedAttr: WINDOWS_RESERVED,
        },
        text: 'Assigned 0 out of 1 requested IPv4 addresses; Need to allocate an IPAM block but could not - limit of 20 blocks reached for this node; No IPs available in pools: [192.168.0.0/24 192.168.1.0/24]; HostReservedAttr: windows-reserved-ipam-handle',
      },
      {
        a: { ips: ['fd00::1/122'], numRequested: 2, ipVersion: 6, msgs: [] },
        text: 'Assigned 1 out of 2 requested IPv6 addresses',
      },
      {
        a: { ips: ['10.0.0.1/26'], numRequested: 1, ipVersion: 4, msgs: ['ignored'] },
        text: undefined,
      },
      { a: { ips: [], numRequested: 0, ipVersion: 4, msgs: [] }, text: undefined },
    ] as { a: IpamAssignments; text: string | undefined }[])(
      '65: partialFulfillmentError: $text',
      ({ a, text }) => {
        expect(partialFulfillmentError(a)?.message).toBe(text);
      },
    );

    it('65: partialFulfillmentError of a real short result', async () => {
      const e = env();
      await e.pool('pool1', '192.168.1.0/24');
      await e.node('host-a');
      const r = await e.client.autoAssign({
        num4: 257,
        hostname: 'host-a',
        intendedUse: 'Workload',
      });
      expect(partialFulfillmentError(r.v4)?.message).toBe(
        'Assigned 256 out of 257 requested IPv4 addresses; No IPs available in pools: [192.168.1.0/24]',
      );
      expect(partialFulfillmentError(r.v6)).toBeUndefined();
    });
  });
}
