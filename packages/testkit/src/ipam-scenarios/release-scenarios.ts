import { describe, expect, it } from 'vitest';
import type { EnvAccessor, ScenarioEnv } from './harness.js';
import { addressOf, blockOf, expectIpamError, ordinalIn } from './harness.js';

const TUNNEL_HANDLE = 'testnode-ipip-tunnel-address';

async function seqFor(e: ScenarioEnv, ip: string, blockSize: number): Promise<bigint> {
  const cidr = blockOf(ip, blockSize);
  const block = await e.block(cidr);
  const seq = block.sequenceNumberForAllocation[String(ordinalIn(ip, cidr))];
  expect(seq, `sequence number of ${ip}`).toBeDefined();
  return seq!;
}

/**
 * One round of Calico's ABA test: allocate, release by handle, re-assign the same address,
 * then a release with the old sequence number is refused and one with the fresh one succeeds.
 */
async function sequenceRound(e: ScenarioEnv, dropAffinityFirst: boolean): Promise<void> {
  const r = await e.client.autoAssign({
    num4: 1,
    hostname: 'testnode',
    handleId: TUNNEL_HANDLE,
    intendedUse: 'Tunnel',
  });
  expect(r.v4.ips).toHaveLength(1);
  const ip = addressOf(r.v4.ips[0]!);
  const oldSeq = await seqFor(e, ip, 30);
  if (dropAffinityFirst) {
    await e.client.releaseHostAffinities(
      { affinityType: 'host', host: 'testnode' },
      { mustBeEmpty: false },
    );
  }
  await e.client.releaseByHandle(TUNNEL_HANDLE);
  if (dropAffinityFirst) expect(await e.blocks()).toEqual([]);
  e.clock.advance(1000);
  await e.client.assignIp({
    ip,
    hostname: 'testnode',
    handleId: TUNNEL_HANDLE,
    intendedUse: 'Tunnel',
  });
  const fresh = await seqFor(e, ip, 30);
  if (dropAffinityFirst) expect(fresh).not.toBe(oldSeq);
  else expect(fresh).toBe(oldSeq + 2n);
  const stale = await expectIpamError(
    e.client.releaseIps([{ address: ip, sequenceNumber: oldSeq, handle: TUNNEL_HANDLE }]),
    'BadSequenceNumber',
  );
  expect(stale.partial).toEqual({ unallocated: [], released: [] });
  const ok = await e.client.releaseIps([
    { address: ip, sequenceNumber: fresh, handle: TUNNEL_HANDLE },
  ]);
  expect(ok).toEqual({ unallocated: [], released: [expect.objectContaining({ address: ip })] });
}

/** §5.2 items 23-30: release, handles and sequence numbers. */
export function describeReleaseScenarios(env: EnvAccessor): void {
  describe('release, handles and sequence numbers', () => {
    it.each([
      { how: 'the block kept', dropAffinityFirst: false },
      { how: 'the block deleted and re-created', dropAffinityFirst: true },
    ])(
      '23/24: a stale sequence number cannot release a re-assigned address ($how)',
      async ({ dropAffinityFirst }) => {
        const e = env();
        await e.pool('pool1', '10.0.0.0/24', { blockSize: 30 });
        await e.node('testnode');
        for (let round = 0; round < 10; round++) await sequenceRound(e, dropAffinityFirst);
      },
    );

    it.each([
      { case: 'no guards', opt: () => ({}), code: undefined },
      {
        case: 'the current sequence number',
        opt: (seq: bigint) => ({ sequenceNumber: seq }),
        code: undefined,
      },
      {
        case: 'a different sequence number',
        opt: (seq: bigint) => ({ sequenceNumber: seq + 1n }),
        code: 'BadSequenceNumber',
      },
      {
        case: 'a handle the address does not have',
        opt: () => ({ handle: 'fakehandle' }),
        code: 'BadHandle',
      },
    ] as const)('25: release guarded by $case', async ({ opt, code }) => {
      const e = env();
      await e.pool('pool1', '192.168.0.0/24');
      await e.node('host-a');
      await e.client.assignIp({ ip: '192.168.0.1', hostname: 'host-a' });
      const seq = await seqFor(e, '192.168.0.1', 26);
      const release = e.client.releaseIps([{ address: '192.168.0.1', ...opt(seq) }]);
      if (code === undefined) {
        await expect(release).resolves.toMatchObject({ unallocated: [], released: [{}] });
        return;
      }
      const err = await expectIpamError(release, code);
      expect(err.partial).toEqual({ unallocated: [], released: [] });
      await expect(e.client.getAssignmentAttributes('192.168.0.1')).resolves.toEqual({});
    });

    it('26: what releaseIps reports as unallocated', async () => {
      const e = env();
      await e.pool('pool4', '192.168.1.0/24');
      await e.pool('pool6', 'fd80:24e2:f998:72d6::/120');
      await e.node('host-a');
      await expect(e.client.releaseIps([{ address: '1.1.1.1' }])).resolves.toEqual({
        unallocated: ['1.1.1.1'],
        released: [],
      });
      await e.client.assignIp({ ip: '192.168.1.1', hostname: 'host-a' });
      await expect(e.client.releaseIps([{ address: '192.168.1.0' }])).resolves.toMatchObject({
        unallocated: ['192.168.1.0'],
      });
      await expect(e.client.releaseIps([{ address: '192.168.1.1' }])).resolves.toMatchObject({
        unallocated: [],
      });
      await e.client.assignIp({ ip: 'fd80:24e2:f998:72d6::5', hostname: 'host-a' });
      await expect(
        e.client.releaseIps([{ address: 'fd80:24e2:f998:72d6::5' }]),
      ).resolves.toMatchObject({ unallocated: [] });
      const r = await e.client.autoAssign({
        num4: 66,
        hostname: 'host-a',
        intendedUse: 'Workload',
      });
      expect(new Set(r.v4.ips.map((ip) => blockOf(ip, 26))).size).toBe(2);
      const all = await e.client.releaseIps(r.v4.ips.map((ip) => ({ address: addressOf(ip) })));
      expect(all.unallocated).toEqual([]);
      expect(all.released).toHaveLength(66);
    });

    it('27: a duplicated address in one release frees it once', async () => {
      const e = env();
      await e.pool('pool1', '10.0.0.0/26');
      await e.node('host-a');
      const full = await e.client.autoAssign({
        num4: 64,
        hostname: 'host-a',
        intendedUse: 'Workload',
      });
      expect(full.v4.ips).toHaveLength(64);
      await e.client.releaseIps([{ address: '10.0.0.1' }, { address: '10.0.0.1' }]);
      await e.client.assignIp({ ip: '10.0.0.1', hostname: 'host-a' });
      await expect(e.client.getAssignmentAttributes('10.0.0.1')).resolves.toEqual({});
      const none = await e.client.autoAssign({
        num4: 1,
        hostname: 'host-a',
        intendedUse: 'Workload',
      });
      expect(none.v4.ips).toEqual([]);
    });

    it('28: releasing 100 addresses across blocks, nodes and a disabled pool', async () => {
      const e = env();
      await e.pool('pool10', '10.0.0.0/24', { blockSize: 30, nodeSelector: 'rack == "a"' });
      await e.pool('pool11', '11.0.0.0/24', { blockSize: 30, nodeSelector: 'rack == "b"' });
      await e.pool('pool6', 'fd00:ba:ad:beef::/120');
      const nodes = { node1: 'a', node2: 'a', node3: 'b', node4: 'b' };
      const ips: string[] = [];
      for (const [node, rack] of Object.entries(nodes)) {
        await e.node(node, { rack });
        for (let i = 0; i < 6; i++) {
          const r = await e.client.autoAssign({
            num4: 1,
            num6: 1,
            hostname: node,
            intendedUse: 'Workload',
          });
          ips.push(...r.v4.ips, ...r.v6.ips);
        }
        const r = await e.client.autoAssign({ num4: 13, hostname: node, intendedUse: 'Workload' });
        ips.push(...r.v4.ips);
      }
      expect(ips).toHaveLength(100);
      await e.updatePool('pool11', { disabled: true });
      const started = Date.now();
      const r = await e.client.releaseIps(ips.map((ip) => ({ address: addressOf(ip) })));
      expect(Date.now() - started).toBeLessThan(60_000);
      expect(r.unallocated).toEqual([]);
      expect(r.released).toHaveLength(100);
    });

    it('29: a handle exists while it holds addresses', async () => {
      const e = env();
      await e.pool('pool1', '10.0.0.0/24');
      await e.node('host-a');
      await expectIpamError(e.client.ipsByHandle('h1'), 'DoesNotExist');
      const r = await e.client.autoAssign({
        num4: 1,
        hostname: 'host-a',
        handleId: 'h1',
        intendedUse: 'Workload',
      });
      await expect(e.client.ipsByHandle('h1')).resolves.toEqual([addressOf(r.v4.ips[0]!)]);
      await e.client.releaseByHandle('h1');
      await expectIpamError(e.client.ipsByHandle('h1'), 'DoesNotExist');
      await expectIpamError(e.client.releaseByHandle('h1'), 'DoesNotExist');
    });

    describe('30: a handle capped per IP version', () => {
      const setup = async (): Promise<ScenarioEnv> => {
        const e = env();
        await e.pool('pool4', '10.0.0.0/24');
        await e.pool('pool6', 'fd00:1::/120');
        await e.node('host-a');
        return e;
      };

      it('cap 1: a second AutoAssign returns the same addresses, with host masks', async () => {
        const e = await setup();
        const ask = () =>
          e.client.autoAssign({
            num4: 1,
            num6: 1,
            hostname: 'host-a',
            handleId: 'vm1',
            intendedUse: 'Workload',
            maxAllocToHandlePerIpVersion: 1,
          });
        const first = await ask();
        const second = await ask();
        expect(second.v4.ips).toEqual([`${addressOf(first.v4.ips[0]!)}/32`]);
        expect(second.v6.ips).toEqual([`${addressOf(first.v6.ips[0]!)}/128`]);
        expect(await e.client.ipsByHandle('vm1')).toHaveLength(2);
      });

      it('cap 1: AssignIP of the same address is idempotent, another is refused', async () => {
        const e = await setup();
        const assign = (ip: string) =>
          e.client.assignIp({
            ip,
            hostname: 'host-a',
            handleId: 'vm2',
            maxAllocToHandlePerIpVersion: 1,
          });
        await assign('10.0.0.1');
        await assign('10.0.0.1');
        await expectIpamError(assign('10.0.0.2'), 'InvalidArgument');
        await expect(e.client.ipsByHandle('vm2')).resolves.toEqual(['10.0.0.1']);
      });

      it('cap 2: the third request gets one of the first two back', async () => {
        const e = await setup();
        const ask = () =>
          e.client.autoAssign({
            num4: 1,
            hostname: 'host-a',
            handleId: 'vm3',
            intendedUse: 'Workload',
            maxAllocToHandlePerIpVersion: 2,
          });
        const a = addressOf((await ask()).v4.ips[0]!);
        const b = addressOf((await ask()).v4.ips[0]!);
        expect(a).not.toBe(b);
        const c = addressOf((await ask()).v4.ips[0]!);
        expect([a, b]).toContain(c);
        expect((await e.client.ipsByHandle('vm3')).sort()).toEqual([a, b].sort());
      });
    });
  });
}
