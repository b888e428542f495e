import { describe, expect, it } from 'vitest';
import type { EnvAccessor } from './harness.js';
import { addressOf, blockOf, expectIpamError, inCidr } from './harness.js';

/** §5.2 items 11-22: which pools a request may draw from. */
export function describePoolSelectionScenarios(env: EnvAccessor): void {
  describe('pool selection', () => {
    it('11: requested pools, utilization per pool, and a full pool giving nothing', async () => {
      const e = env();
      await e.pool('pool1', '10.0.0.0/24');
      await e.pool('pool2', '20.0.0.0/24');
      await e.node('host-a');
      const r = await e.client.autoAssign({
        num4: 1,
        hostname: 'host-a',
        intendedUse: 'Workload',
        ipv4Pools: ['10.0.0.0/24'],
      });
      expect(inCidr(r.v4.ips[0]!, '10.0.0.0/24')).toBe(true);
      const all = await e.client.getUtilization();
      const pool1 = all.find((p) => p.name === 'pool1')!;
      expect(pool1.blocks).toEqual([
        expect.objectContaining({ cidr: blockOf(r.v4.ips[0]!, 26), inUse: 1 }),
      ]);
      const only2 = await e.client.getUtilization({ pools: ['20.0.0.0/24'] });
      expect(only2).toHaveLength(1);
      expect(only2[0]).toMatchObject({ name: 'pool2', inUse: 0, blocks: [] });

      const fill = await e.client.autoAssign({
        num4: 256,
        hostname: 'host-a',
        intendedUse: 'Workload',
        ipv4Pools: ['20.0.0.0/24'],
      });
      expect(fill.v4.ips).toHaveLength(256);
      const none = await e.client.autoAssign({
        num4: 1,
        hostname: 'host-a',
        intendedUse: 'Workload',
        ipv4Pools: ['20.0.0.0/24'],
      });
      expect(none.v4.ips).toEqual([]);
    });

    it('12: several requested pools keep their order; bad lists are refused', async () => {
      const e = env();
      await e.pool('pool1', '10.0.0.0/24');
      await e.pool('pool2', '20.0.0.0/24');
      await e.pool('pool3', '30.0.0.0/24', { disabled: true });
      await e.pool('pool6', 'fd00:11::/120');
      await e.node('host-a');
      const ask = (num4: number, ipv4Pools: string[], ipv6Pools?: string[]) =>
        e.client.autoAssign({
          num4,
          hostname: 'host-a',
          intendedUse: 'Workload',
          ipv4Pools,
          ...(ipv6Pools && { ipv6Pools, num6: 1 }),
        });
      await expectIpamError(ask(1, ['10.0.0.0/24', '30.0.0.0/24']), 'InvalidArgument');
      // Checked before anything is allocated (Calico allocated v4 first, then discarded it).
      await expectIpamError(ask(1, ['10.0.0.0/24'], ['20.0.0.0/24']), 'InvalidArgument');
      await expectIpamError(ask(1, ['pool1'], ['pool2']), 'InvalidArgument');
      await expectIpamError(ask(1, ['pool1'], ['no-such-pool']), 'InvalidArgument');
      expect(await e.blocks()).toEqual([]);

      const one = await ask(1, ['10.0.0.0/24', '20.0.0.0/24']);
      expect(inCidr(one.v4.ips[0]!, '10.0.0.0/24')).toBe(true);
      const many = await ask(300, ['10.0.0.0/24', '20.0.0.0/24']);
      expect(many.v4.ips).toHaveLength(300);
      const rest = await ask(300, ['10.0.0.0/24', '20.0.0.0/24']);
      expect(rest.v4.ips).toHaveLength(211);

      const err = await expectIpamError(ask(1, ['10.0.0.0/24', '40.0.0.0/24']), 'InvalidArgument');
      expect(err.message).toBe('the given pool (40.0.0.0/24) does not exist, or is not enabled');
    });

    it('13a: node selectors confine a host to the pools that select it', async () => {
      const e = env();
      await e.pool('pool1', '10.0.0.0/24', { nodeSelector: 'foo == "bar"' });
      await e.pool('pool2', '20.0.0.0/24', { nodeSelector: 'foo != "bar"' });
      await e.node('host-a', { foo: 'bar' });
      const r = await e.client.autoAssign({
        num4: 300,
        hostname: 'host-a',
        intendedUse: 'Workload',
      });
      expect(r.v4.ips).toHaveLength(256);
      expect(r.v4.ips.every((ip) => inCidr(ip, '10.0.0.0/24'))).toBe(true);
    });

    it('13b: after a relabel the old host gets no pool; the new one borrows its block', async () => {
      const e = env();
      await e.pool('pool1', '10.0.0.0/30', { blockSize: 30, nodeSelector: 'foo == "bar"' });
      await e.node('host1', { foo: 'bar' });
      await e.node('host2', { foo: 'baz' });
      const r = await e.client.autoAssign({ num4: 3, hostname: 'host1', intendedUse: 'Workload' });
      expect(r.v4.ips).toHaveLength(3);
      await e.relabel('host1', { foo: 'baz' });
      await e.relabel('host2', { foo: 'bar' });
      const err = await expectIpamError(
        e.client.autoAssign({ num4: 1, hostname: 'host1', intendedUse: 'Workload' }),
        'NoQualifiedPool',
      );
      expect(err.message).toBe('no configured Calico pools for node host1');
      const borrowed = await e.client.autoAssign({
        num4: 1,
        hostname: 'host2',
        intendedUse: 'Workload',
      });
      expect(borrowed.v4.ips).toHaveLength(1);
      expect(inCidr(borrowed.v4.ips[0]!, '10.0.0.0/30')).toBe(true);
      expect(await e.affinities()).toEqual([expect.objectContaining({ host: 'host1' })]);
    });

    it.each(['releaseIps', 'releaseByHandle'] as const)(
      '14: a block is dropped with its last address once its pool no longer selects the node (%s)',
      async (how) => {
        const e = env();
        await e.pool('pool1', '10.0.0.0/24', { nodeSelector: 'foo == "bar"' });
        await e.node('host-a', { foo: 'bar' });
        const ips: string[] = [];
        for (const h of ['h1', 'h2', 'h3']) {
          const r = await e.client.autoAssign({
            num4: 1,
            hostname: 'host-a',
            handleId: h,
            intendedUse: 'Workload',
          });
          ips.push(r.v4.ips[0]!);
        }
        expect(new Set(ips.map((ip) => blockOf(ip, 26))).size).toBe(1);
        const release = (i: number) =>
          how === 'releaseIps'
            ? e.client.releaseIps([{ address: addressOf(ips[i]!) }])
            : e.client.releaseByHandle(['h1', 'h2', 'h3'][i]!);
        await release(0);
        expect(await e.affinities('host-a')).toHaveLength(1);
        await e.updatePool('pool1', { nodeSelector: 'foo != "bar"' });
        await release(1);
        expect(await e.affinities('host-a')).toHaveLength(1);
        expect(await e.blocks()).toHaveLength(1);
        await release(2);
        expect(await e.affinities('host-a')).toEqual([]);
        expect(await e.blocks()).toEqual([]);
      },
    );

    it('15: an empty block in a pool that stopped selecting the node is released on the next request', async () => {
      const e = env();
      await e.pool('pool1', '10.0.0.0/24', { nodeSelector: 'foo == "bar"' });
      await e.node('host-a', { foo: 'bar' });
      const r = await e.client.autoAssign({ num4: 3, hostname: 'host-a', intendedUse: 'Workload' });
      await e.client.releaseIps(r.v4.ips.map((ip) => ({ address: addressOf(ip) })));
      expect(await e.blocks()).toHaveLength(1);
      await e.updatePool('pool1', { nodeSelector: 'foo != "bar"' });
      await e.pool('pool2', '20.0.0.0/24', { nodeSelector: 'all()' });
      const next = await e.client.autoAssign({
        num4: 3,
        hostname: 'host-a',
        intendedUse: 'Workload',
      });
      expect(next.v4.ips.every((ip) => inCidr(ip, '20.0.0.0/24'))).toBe(true);
      expect(await e.affinities('host-a')).toHaveLength(1);
      const blocks = await e.blocks();
      expect(blocks).toHaveLength(1);
      expect(inCidr(blocks[0]!.cidr, '20.0.0.0/24')).toBe(true);
    });

    it('16: a pool ruled out only by use keeps its empty block', async () => {
      const e = env();
      await e.pool('pool1', '10.0.0.0/24', { allowedUses: ['Workload'] });
      await e.pool('pool2', '20.0.0.0/24', { allowedUses: ['Tunnel'] });
      await e.node('host-a');
      const w = await e.client.autoAssign({ num4: 1, hostname: 'host-a', intendedUse: 'Workload' });
      await e.client.releaseIps([{ address: addressOf(w.v4.ips[0]!) }]);
      const t = await e.client.autoAssign({ num4: 1, hostname: 'host-a', intendedUse: 'Tunnel' });
      expect(inCidr(t.v4.ips[0]!, '20.0.0.0/24')).toBe(true);
      expect(await e.affinities('host-a')).toHaveLength(2);
      expect(await e.blocks()).toHaveLength(2);
    });

    it('17: explicitly requesting another pool does not release the host’s blocks', async () => {
      const e = env();
      await e.pool('pool1', '10.0.0.0/24');
      await e.pool('pool2', '20.0.0.0/24');
      await e.node('host-a');
      const w = await e.client.autoAssign({
        num4: 1,
        hostname: 'host-a',
        intendedUse: 'Workload',
        ipv4Pools: ['10.0.0.0/24'],
      });
      await e.client.releaseIps([{ address: addressOf(w.v4.ips[0]!) }]);
      await e.client.autoAssign({
        num4: 1,
        hostname: 'host-a',
        intendedUse: 'Workload',
        ipv4Pools: ['20.0.0.0/24'],
      });
      expect(await e.affinities('host-a')).toHaveLength(2);
      expect(await e.blocks()).toHaveLength(2);
    });

    it('18: allowed uses filter AutoAssign pools', async () => {
      const e = env();
      await e.pool('tunnel', '192.168.3.0/24', { allowedUses: ['Tunnel'] });
      await e.node('host-a');
      await expectIpamError(
        e.client.autoAssign({ num4: 1, hostname: 'host-a', intendedUse: 'Workload' }),
        'NoQualifiedPool',
      );
      await expectIpamError(
        e.client.autoAssign({
          num4: 1,
          hostname: 'host-a',
          intendedUse: 'Workload',
          ipv4Pools: ['192.168.3.0/24'],
        }),
        'NoQualifiedPool',
      );
      const t = await e.client.autoAssign({ num4: 1, hostname: 'host-a', intendedUse: 'Tunnel' });
      expect(t.v4.ips).toHaveLength(1);
      await expectIpamError(
        e.client.autoAssign({ num4: 1, hostname: 'host-a', intendedUse: '' as 'Workload' }),
        'UseRequired',
      );
    });

    it('19: allowed uses are checked by AssignIP when a use is given', async () => {
      const e = env();
      await e.pool('pool1', '10.0.0.0/24', { allowedUses: ['Workload'] });
      await e.pool('pool2', '20.0.0.0/24');
      await e.node('host-a');
      await expectIpamError(
        e.client.assignIp({ ip: '10.0.0.1', hostname: 'host-a', intendedUse: 'Tunnel' }),
        'InvalidArgument',
      );
      await e.client.assignIp({ ip: '10.0.0.1', hostname: 'host-a', intendedUse: 'Workload' });
      await e.client.assignIp({ ip: '10.0.0.2', hostname: 'host-a' });
      await e.client.assignIp({ ip: '20.0.0.1', hostname: 'host-a', intendedUse: 'Tunnel' });
    });

    describe.each([4, 6] as const)('20: pool qualification table (v%i)', (version) => {
      const [c1, c2] =
        version === 4 ? ['10.0.0.0/24', '20.0.0.0/24'] : ['fd00:1::/120', 'fd00:2::/120'];
      const assign = (requested?: string[]) =>
        env().client.autoAssign({
          num4: version === 4 ? 1 : 0,
          num6: version === 6 ? 1 : 0,
          hostname: 'host-a',
          intendedUse: 'Workload',
          ...(requested && (version === 4 ? { ipv4Pools: requested } : { ipv6Pools: requested })),
        });
      const got = (r: Awaited<ReturnType<typeof assign>>) => (version === 4 ? r.v4 : r.v6).ips;
      const inPool = (ip: string, cidr: string) =>
        version === 4 ? inCidr(ip, cidr) : ip.startsWith(cidr.split('::')[0]! + '::');

      it.each([
        { case: 'no selectors, none requested', s1: undefined, s2: undefined, req: false, pool: 1 },
        {
          case: 'pool1 selects, pool2 not',
          s1: 'foo == "bar"',
          s2: 'foo != "bar"',
          req: false,
          pool: 1,
        },
        {
          case: 'pool1 deselects but is requested',
          s1: 'foo != "bar"',
          s2: undefined,
          req: true,
          pool: 1,
        },
        {
          case: 'both deselect, none requested',
          s1: 'foo != "bar"',
          s2: 'foo != "bar"',
          req: false,
          pool: 0,
        },
      ])('$case', async ({ s1, s2, req, pool }) => {
        const e = env();
        await e.pool('pool1', c1, s1 ? { nodeSelector: s1 } : {});
        await e.pool('pool2', c2, s2 ? { nodeSelector: s2 } : {});
        await e.node('host-a', { foo: 'bar' });
        if (pool === 0) {
          await expectIpamError(assign(), 'NoQualifiedPool');
          return;
        }
        const r = await assign(req ? [c1] : undefined);
        expect(inPool(got(r)[0]!, pool === 1 ? c1 : c2)).toBe(true);
      });

      it('a disabled pool cannot be requested', async () => {
        const e = env();
        await e.pool('pool1', c1, { disabled: true });
        await e.pool('pool2', c2);
        await e.node('host-a', { foo: 'bar' });
        await expectIpamError(assign([c1]), 'InvalidArgument');
        const r = await assign();
        expect(inPool(got(r)[0]!, c2)).toBe(true);
      });
    });

    it('21: namespace selectors, together with node selectors; requests ignore them', async () => {
      const e = env();
      await e.pool('prod', '10.0.0.0/24', {
        allowedUses: ['Workload'],
        namespaceSelector: "environment == 'production'",
        nodeSelector: 'foo == "bar"',
      });
      await e.node('host-a', { foo: 'bar' });
      await e.node('host-b', { foo: 'baz' });
      const ask = (host: string, env: string, ipv4Pools?: string[]) =>
        e.client.autoAssign({
          num4: 1,
          hostname: host,
          intendedUse: 'Workload',
          namespace: { name: 'ns', labels: { environment: env } },
          ...(ipv4Pools && { ipv4Pools }),
        });
      expect((await ask('host-a', 'production')).v4.ips).toHaveLength(1);
      await expectIpamError(ask('host-a', 'development'), 'NoQualifiedPool');
      await expectIpamError(ask('host-b', 'production'), 'NoQualifiedPool');
      expect((await ask('host-a', 'development', ['10.0.0.0/24'])).v4.ips).toHaveLength(1);
      await expectIpamError(
        e.pool('bad', '20.0.0.0/24', {
          allowedUses: ['Workload'],
          namespaceSelector: 'environment ==',
        }),
        'InvalidArgument',
      );
    });

    it('22: after its pool is deleted, a host allocates from the new pool', async () => {
      const e = env();
      await e.pool('pool1', '10.0.0.0/24');
      await e.node('host-a');
      const before = await e.client.autoAssign({
        num4: 1,
        hostname: 'host-a',
        intendedUse: 'Workload',
      });
      expect(inCidr(before.v4.ips[0]!, '10.0.0.0/24')).toBe(true);
      await e.client.pools.delete('pool1');
      await e.pool('pool2', '20.0.0.0/24');
      const after = await e.client.autoAssign({
        num4: 1,
        hostname: 'host-a',
        intendedUse: 'Workload',
      });
      expect(inCidr(after.v4.ips[0]!, '20.0.0.0/24')).toBe(true);
    });
  });
}
