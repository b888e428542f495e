import { describe, expect, it } from 'vitest';
import type { EnvAccessor, ScenarioEnv } from './harness.js';
import { WINDOWS_RESERVED, blockOf, expectIpamError, inCidr, ordinalIn } from './harness.js';

const RSVD = { ...WINDOWS_RESERVED, startOfBlock: 2, endOfBlock: 1 };

/** §5.2 items 63, 64 and 66 (host-reserved addresses, without a Windows context flag). */
export function describeWindowsScenarios(env: EnvAccessor): void {
  describe('host-reserved blocks and ensureBlock', () => {
    it('63: ensureBlock validates pools and returns the same block every time', async () => {
      const e = env();
      await e.pool('pool1', '10.0.0.0/24');
      await e.pool('pool2', '20.0.0.0/24');
      await e.pool('pool3', '30.0.0.0/24', { disabled: true });
      await e.pool('pool6', 'fd00:1::/120');
      await e.pool('pool90', '90.0.0.0/24', { blockSize: 31 });
      await e.node('host-a');
      const ensure = (ipv4Pools?: string[]) =>
        e.client.ensureBlock({
          hostname: 'host-a',
          hostReservedAttrIPv4s: WINDOWS_RESERVED,
          ...(ipv4Pools && { ipv4Pools }),
        });
      await expectIpamError(ensure(['10.0.0.0/24', '30.0.0.0/24']), 'InvalidArgument');
      await expectIpamError(ensure(['fd00:1::/120']), 'InvalidArgument');
      const err = await expectIpamError(ensure(['90.0.0.0/24']), 'InvalidArgument');
      expect(err.message).toBe('the given pool (90.0.0.0/24) does not exist, or is not enabled');
      // Both families' lists are resolved before any block is claimed.
      await expectIpamError(
        e.client.ensureBlock({
          hostname: 'host-a',
          hostReservedAttrIPv4s: WINDOWS_RESERVED,
          hostReservedAttrIPv6s: WINDOWS_RESERVED,
          ipv6Pools: ['pool1'],
        }),
        'InvalidArgument',
      );
      expect(await e.blocks()).toEqual([]);

      const first = await ensure();
      expect(first.v6).toBeUndefined();
      expect(inCidr(first.v4!, '10.0.0.0/24')).toBe(true);
      await expect(ensure(['10.0.0.0/24', '20.0.0.0/24'])).resolves.toEqual(first);
      await expect(ensure()).resolves.toEqual(first);
      const block = await e.block(first.v4!);
      expect(block.unallocated).toHaveLength(60);

      const v6 = await e.client.ensureBlock({
        hostname: 'host-a',
        ipv6Pools: ['fd00:1::/120'],
        hostReservedAttrIPv6s: WINDOWS_RESERVED,
      });
      expect(v6.v4).toBeUndefined();
      expect(v6.v6).toMatch(/^fd00:1::([0-9a-f]+)?\/122$/);
      expect(await e.blocks()).toHaveLength(2);
    });

    describe('64: affine blocks with one free address each, then a new claim', () => {
      const setup = async (release: boolean): Promise<ScenarioEnv> => {
        const e = env();
        await e.pool('pool1', '10.0.0.0/24', { blockSize: 30 });
        await e.node('host-a');
        for (const ip of ['10.0.0.2', '10.0.0.6']) {
          await e.client.assignIp({ ip, hostname: 'host-a', hostReservedAttr: RSVD });
          if (release) await e.client.releaseIps([{ address: ip }]);
        }
        return e;
      };
      const ask = (e: ScenarioEnv, maxBlocksPerHost?: number) =>
        e.client.autoAssign({
          num4: 1,
          hostname: 'host-a',
          intendedUse: 'Workload',
          hostReservedAttrIPv4s: RSVD,
          ...(maxBlocksPerHost !== undefined && { maxBlocksPerHost }),
        });

      it('uses the affine blocks in store order, then claims a reserved-ends block', async () => {
        const e = await setup(true);
        expect((await ask(e)).v4.ips).toEqual(['10.0.0.2/30']);
        expect((await ask(e)).v4.ips).toEqual(['10.0.0.6/30']);
        const third = (await ask(e)).v4.ips;
        expect(third).toHaveLength(1);
        const cidr = blockOf(third[0]!, 30);
        expect(['10.0.0.0/30', '10.0.0.4/30']).not.toContain(cidr);
        expect(ordinalIn(third[0]!, cidr)).toBe(2);
      });

      it('skips an affine block that reservations cover', async () => {
        const e = await setup(true);
        await e.reservation('r1', ['10.0.0.0/30']);
        expect((await ask(e)).v4.ips).toEqual(['10.0.0.6/30']);
      });

      it('claims a new block when the affine ones are full, unless capped', async () => {
        const e = await setup(false);
        await expectIpamError(ask(e, 2), 'BlockLimit');
        const r = await ask(e);
        expect(r.v4.ips).toHaveLength(1);
        expect(['10.0.0.0/30', '10.0.0.4/30']).not.toContain(blockOf(r.v4.ips[0]!, 30));
      });
    });

    describe('66: host-reserved ends under strict affinity', () => {
      const setup = async (): Promise<ScenarioEnv> => {
        const e = env();
        await e.pool('pool4', '10.0.0.0/24');
        await e.pool('pool6', 'fd00:1::/120');
        await e.setConfig({ strictAffinity: true });
        return e;
      };
      const STRICT_MSG = 'No more free affine blocks and strict affinity enabled';
      const ask = (e: ScenarioEnv, host: string, num4: number, num6 = 0) =>
        e.client.autoAssign({
          num4,
          num6,
          hostname: host,
          intendedUse: 'Workload',
          hostReservedAttrIPv4s: WINDOWS_RESERVED,
          hostReservedAttrIPv6s: WINDOWS_RESERVED,
        });

      it('256 requested gives 240, never the first three or the last of a block', async () => {
        const e = await setup();
        await e.node('host-a');
        const r = await ask(e, 'host-a', 256);
        expect(r.v4.ips).toHaveLength(240);
        expect(r.v4.msgs).toEqual([STRICT_MSG]);
        const ordinals = r.v4.ips.map((ip) => ordinalIn(ip, blockOf(ip, 26)));
        expect(ordinals.filter((o) => [0, 1, 2, 63].includes(o))).toEqual([]);
      });

      it('four hosts each get 59 more after their first address', async () => {
        const e = await setup();
        const hosts = ['host-1', 'host-2', 'host-3', 'host-4'];
        for (const h of hosts) {
          await e.node(h);
          expect((await ask(e, h, 1)).v4.ips).toHaveLength(1);
        }
        for (const h of hosts) {
          const r = await ask(e, h, 100);
          expect(r.v4.ips).toHaveLength(59);
          expect(r.v4.msgs).toEqual([STRICT_MSG]);
        }
      });

      it('256 of each family gives 240 of each', async () => {
        const e = await setup();
        await e.node('host-a');
        const r = await ask(e, 'host-a', 256, 256);
        expect(r.v4).toMatchObject({ msgs: [STRICT_MSG] });
        expect(r.v6).toMatchObject({ msgs: [STRICT_MSG] });
        expect(r.v4.ips).toHaveLength(240);
        expect(r.v6.ips).toHaveLength(240);
      });

      it('reservations too big for the blocks leave no qualified pool', async () => {
        const e = await setup();
        await e.node('host-a');
        const big = { ...WINDOWS_RESERVED, startOfBlock: 32, endOfBlock: 33 };
        await expectIpamError(
          e.client.autoAssign({
            num4: 1,
            hostname: 'host-a',
            intendedUse: 'Workload',
            hostReservedAttrIPv4s: big,
          }),
          'NoQualifiedPool',
        );
        await expectIpamError(
          e.client.autoAssign({
            num4: 0,
            num6: 1,
            hostname: 'host-a',
            intendedUse: 'Workload',
            hostReservedAttrIPv6s: big,
          }),
          'NoQualifiedPool',
        );
      });

      it('240 requested gives 240 with no messages', async () => {
        const e = await setup();
        await e.node('host-a');
        const r = await ask(e, 'host-a', 240);
        expect(r.v4.ips).toHaveLength(240);
        expect(r.v4.msgs).toEqual([]);
      });
    });
  });
}
