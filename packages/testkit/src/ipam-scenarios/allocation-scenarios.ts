import type { IpamAssignments } from '@netledger/ipam-core';
import { createIpamClient } from '@netledger/ipam-core';
import { describe, expect, it } from 'vitest';
import type { EnvAccessor } from './harness.js';
import { addressOf, blockOf, expectIpamError, inCidr } from './harness.js';

const V6 = 'fd80:24e2:f998:72d6::';

/** §5.2 items 1-10: basic allocation and placement. */
export function describeAllocationScenarios(env: EnvAccessor): void {
  describe('allocation and placement', () => {
    it.each([
      { v4: ['192.168.1.0/24', 32], v6: [`${V6}/120`, 128] },
      { v4: ['192.168.0.0/16', 20], v6: [`${V6}/110`, 116] },
      { v4: ['192.168.1.0/24', 26], v6: [`${V6}/120`, 122] },
    ] as const)('1: one v4 and one v6 from blocks of /$v4.1 and /$v6.1', async ({ v4, v6 }) => {
      const e = env();
      await e.pool('pool4', v4[0], { blockSize: v4[1] });
      await e.pool('pool6', v6[0], { blockSize: v6[1] });
      await e.node('host-a');
      const r = await e.client.autoAssign({
        num4: 1,
        num6: 1,
        hostname: 'host-a',
        intendedUse: 'Workload',
      });
      expect(r.v4).toMatchObject({ msgs: [], numRequested: 1, ipVersion: 4 });
      expect(r.v6).toMatchObject({ msgs: [], numRequested: 1, ipVersion: 6 });
      expect(r.v4.ips).toHaveLength(1);
      expect(r.v6.ips).toHaveLength(1);
      expect(r.v4.ips[0]).toMatch(new RegExp(`/${v4[1]}$`));
      expect(r.v6.ips[0]).toMatch(new RegExp(`/${v6[1]}$`));
    });

    it.each([
      { bs4: 26, bs6: 122, maxBlocksPerHost: undefined, cap: 'default' },
      { bs4: 30, bs6: 126, maxBlocksPerHost: 256, cap: '256 per request' },
    ])(
      '2: 256 v4 and 256 v6 with blocks of /$bs4 and /$bs6 (block cap: $cap)',
      async ({ bs4, bs6, maxBlocksPerHost }) => {
        const e = env();
        await e.pool('pool4', '192.168.1.0/24', { blockSize: bs4 });
        await e.pool('pool6', `${V6}/120`, { blockSize: bs6 });
        await e.node('host-a');
        const r = await e.client.autoAssign({
          num4: 256,
          num6: 256,
          hostname: 'host-a',
          intendedUse: 'Workload',
          ...(maxBlocksPerHost !== undefined && { maxBlocksPerHost }),
        });
        expect(r.v4.ips).toHaveLength(256);
        expect(r.v6.ips).toHaveLength(256);
        expect(new Set(r.v4.ips).size).toBe(256);
        expect(r.v4.msgs).toEqual([]);
        expect(r.v6.msgs).toEqual([]);
      },
    );

    it.each([
      { version: 4, limit: 1, expected: 64 },
      { version: 4, limit: 2, expected: 128 },
      { version: 6, limit: 1, expected: 64 },
    ] as const)(
      '3: per-host block limit $limit on v$version gives $expected addresses and BlockLimit',
      async ({ version, limit, expected }) => {
        const e = env();
        await e.pool('pool4', '192.168.1.0/24', { blockSize: 26 });
        await e.pool('pool6', `${V6}/120`, { blockSize: 122 });
        await e.node('host-a');
        const err = await expectIpamError(
          e.client.autoAssign({
            num4: version === 4 ? 256 : 0,
            num6: version === 6 ? 256 : 0,
            hostname: 'host-a',
            handleId: 'h1',
            intendedUse: 'Workload',
            maxBlocksPerHost: limit,
          }),
          'BlockLimit',
        );
        const partial = err.partial as { v4: IpamAssignments; v6: IpamAssignments };
        const got = version === 4 ? partial.v4 : partial.v6;
        expect(got.ips).toHaveLength(expected);
        expect(got.msgs).toEqual([
          `Need to allocate an IPAM block but could not - limit of ${limit} blocks reached for this node`,
        ]);
      },
    );

    it.each([
      { version: 4, cidr: '192.168.1.0/24' },
      { version: 6, cidr: `${V6}/120` },
    ] as const)('4: 257 from the /24-sized v$version pool gives 256 and says so', async (c) => {
      const e = env();
      await e.pool('pool', c.cidr);
      await e.node('host-a');
      const r = await e.client.autoAssign({
        num4: c.version === 4 ? 257 : 0,
        num6: c.version === 6 ? 257 : 0,
        hostname: 'host-a',
        handleId: 'h1',
        intendedUse: 'Workload',
      });
      const got = c.version === 4 ? r.v4 : r.v6;
      expect(got.ips).toHaveLength(256);
      expect(got.msgs).toEqual([`No IPs available in pools: [${c.cidr}]`]);
      // Counted by addresses assigned, not requested (a Calico quirk we fix).
      const handle = (await e.ds.get({ kind: 'IPAMHandle', handleId: 'h1' })).value;
      expect(Object.values(handle.block).reduce((a, b) => a + b, 0)).toBe(256);
    });

    it('5: a host borrows from another host once its own block is full', async () => {
      const e = env();
      await e.pool('pool1', '10.0.0.0/25', { blockSize: 26 });
      await e.node('host-a');
      await e.node('host-b');
      const a1 = await e.client.autoAssign({
        num4: 1,
        hostname: 'host-a',
        intendedUse: 'Workload',
      });
      const b1 = await e.client.autoAssign({
        num4: 1,
        hostname: 'host-b',
        intendedUse: 'Workload',
      });
      const blockA = blockOf(a1.v4.ips[0]!, 26);
      const blockB = blockOf(b1.v4.ips[0]!, 26);
      expect(blockA).not.toBe(blockB);
      const more = await e.client.autoAssign({
        num4: 64,
        hostname: 'host-a',
        intendedUse: 'Workload',
      });
      expect(more.v4.ips).toHaveLength(64);
      expect(more.v4.msgs).toEqual([]);
      expect(more.v4.ips.filter((ip) => inCidr(ip, blockA))).toHaveLength(63);
      expect(more.v4.ips.filter((ip) => inCidr(ip, blockB))).toHaveLength(1);
    });

    it('6: strict affinity stops at the affine block with a message, not an error', async () => {
      const e = env();
      await e.pool('pool1', '192.168.1.0/26');
      await e.pool('pool2', '192.168.1.64/26');
      await e.pool('pool6', `${V6}/120`);
      await e.node('host-a');
      await e.setConfig({ strictAffinity: true });
      const r = await e.client.autoAssign({
        num4: 256,
        hostname: 'host-a',
        intendedUse: 'Workload',
        ipv4Pools: ['192.168.1.0/26'],
      });
      expect(r.v4.ips).toHaveLength(64);
      expect(r.v4.msgs).toEqual(['No more free affine blocks and strict affinity enabled']);
    });

    it('7: a second request from the same host lands in the same block', async () => {
      const e = env();
      await e.pool('pool1', '10.0.0.0/24');
      await e.node('host-a');
      const first = await e.client.autoAssign({
        num4: 1,
        hostname: 'host-a',
        intendedUse: 'Workload',
      });
      const second = await e.client.autoAssign({
        num4: 1,
        hostname: 'host-a',
        intendedUse: 'Workload',
      });
      expect(blockOf(second.v4.ips[0]!, 26)).toBe(blockOf(first.v4.ips[0]!, 26));
      expect(second.v4.ips[0]).not.toBe(first.v4.ips[0]);
      expect(await e.affinities('host-a')).toHaveLength(1);
    });

    it('8: released addresses go to the back of the free queue (FIFO wrap)', async () => {
      const e = env();
      await e.pool('pool1', '10.0.0.0/24', { blockSize: 30 });
      await e.node('host-a');
      const seen: string[] = [];
      for (let i = 0; i < 5; i++) {
        const r = await e.client.autoAssign({
          num4: 1,
          hostname: 'host-a',
          intendedUse: 'Workload',
        });
        expect(r.v4.ips).toHaveLength(1);
        seen.push(r.v4.ips[0]!);
        await e.client.releaseIps([{ address: addressOf(r.v4.ips[0]!) }]);
      }
      expect(new Set(seen.slice(0, 4)).size).toBe(4);
      expect(seen[4]).toBe(seen[0]);
    });

    it('9: a host-reserved block hands out only its middle, with the block mask', async () => {
      const e = env();
      await e.pool('pool1', '10.0.0.0/30', { blockSize: 30 });
      await e.node('host-a');
      const rsvd = { startOfBlock: 2, endOfBlock: 1, handle: 'test-handle', note: 'ipam ut' };
      const r = await e.client.autoAssign({
        num4: 1,
        hostname: 'host-a',
        intendedUse: 'Tunnel',
        hostReservedAttrIPv4s: rsvd,
      });
      expect(r.v4.ips).toEqual(['10.0.0.2/30']);
      const block = await e.block('10.0.0.0/30');
      expect(block.allocations.map((a) => (a === null ? null : block.attributes[a]))).toEqual([
        { handleId: 'test-handle', activeOwnerAttrs: { note: 'ipam ut' } },
        { handleId: 'test-handle', activeOwnerAttrs: { note: 'ipam ut' } },
        expect.objectContaining({}),
        { handleId: 'test-handle', activeOwnerAttrs: { note: 'ipam ut' } },
      ]);
      expect(block.unallocated).toEqual([]);
      const again = await e.client.autoAssign({
        num4: 1,
        hostname: 'host-a',
        intendedUse: 'Tunnel',
        hostReservedAttrIPv4s: rsvd,
      });
      expect(again.v4.ips).toEqual([]);
    });

    it('10: AssignIP into a block another client is claiming for another host', async () => {
      const e = env();
      await e.pool('pool1', '10.0.0.0/24');
      await e.node('host-a');
      await e.node('host-b');
      // Two processes: each client serialises only its own requests.
      const other = createIpamClient({ datastore: e.ds, clock: e.clock });
      await Promise.all([
        e.client.assignIp({ ip: '10.0.0.1', hostname: 'host-a', handleId: 'a' }),
        other.assignIp({ ip: '10.0.0.2', hostname: 'host-b', handleId: 'b' }),
      ]);
      await expect(e.client.ipsByHandle('a')).resolves.toEqual(['10.0.0.1']);
      await expect(e.client.ipsByHandle('b')).resolves.toEqual(['10.0.0.2']);
      expect(await e.affinities()).toHaveLength(1);
    });

    it('10: the network address of a pool is assignable', async () => {
      const e = env();
      await e.pool('pool4', '192.168.1.0/24');
      await e.pool('pool6', `${V6}/120`);
      await e.node('host-a');
      await e.client.assignIp({ ip: '192.168.1.0', hostname: 'host-a' });
      await e.client.assignIp({ ip: V6, hostname: 'host-a' });
      await expect(e.client.getAssignmentAttributes('192.168.1.0')).resolves.toEqual({});
      await expect(e.client.getAssignmentAttributes(V6)).resolves.toEqual({});
    });
  });
}
