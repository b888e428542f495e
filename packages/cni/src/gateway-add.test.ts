// ADD in gateway mode, in-process on the memory store: the segment's prefix and gateway in the
// result, the gateway, network and broadcast addresses reserved and never handed out.
import { isIpamError } from '@netledger/ipam-core';
import { describe, expect, it } from 'vitest';
import { reservationNameFor } from './gateway-mode.js';
import { NODE, baseConf, createHarness } from './test-plugin-harness.js';
import type { Harness } from './test-plugin-harness.js';

const gateway = (ipam: Record<string, unknown> = {}, over: Record<string, unknown> = {}) =>
  baseConf({ ...over, ipam: { mode: 'gateway', ipv4_pools: ['pool0'], ...ipam } });
const RESERVATION = reservationNameFor('net1');

const held = async (h: Harness, handle: string): Promise<string[]> =>
  h.client.ipsByHandle(handle).catch((e: unknown) => {
    if (isIpamError(e, 'DoesNotExist')) return [];
    throw e;
  });

describe('ADD in gateway mode', () => {
  it("returns the pool's prefix and gateway, and reserves gateway, network and broadcast", async () => {
    const h = await createHarness();
    const out = await h.run('ADD', gateway({ routes: [{ dst: '0.0.0.0/0' }] }));
    expect(out.json).toEqual({
      cniVersion: '1.0.0',
      ips: [{ address: expect.stringMatching(/^10\.1\.0\.\d+\/24$/), gateway: '10.1.0.1' }],
      routes: [{ dst: '0.0.0.0/0' }],
      dns: {},
    });
    expect((await h.client.reservations.get(RESERVATION)).spec.reservedCIDRs).toEqual([
      '10.1.0.1/32',
      '10.1.0.0/32',
      '10.1.0.255/32',
    ]);
    // ipam show's figures: the three are reserved, not available.
    expect((await h.client.getUtilization())[0]).toMatchObject({
      capacity: 256,
      inUse: 1,
      reserved: 3,
      available: 252,
    });
  });

  it.each(['0.3.1', '0.4.0'])('carries version and gateway on each IP in %s', async (v) => {
    const h = await createHarness();
    const out = await h.run('ADD', gateway({}, { cniVersion: v }));
    expect(out.json).toEqual({
      cniVersion: v,
      ips: [{ version: '4', address: expect.stringMatching(/\/24$/), gateway: '10.1.0.1' }],
      dns: {},
    });
  });

  it('never hands out the gateway, network or broadcast address, to the last one', async () => {
    const h = await createHarness({ pools: [] });
    await h.client.pools.create({
      metadata: { name: 'pool0' },
      spec: { cidr: '10.3.0.0/29', blockSize: 30 },
    });
    const given: string[] = [];
    for (let i = 0; i < 5; i++) {
      const out = await h.run('ADD', gateway(), { CNI_CONTAINERID: `c${i}` });
      expect(out.exitCode, out.stdout).toBe(0);
      given.push((out.json!['ips'] as { address: string }[])[0]!.address);
    }
    expect(given.sort()).toEqual([
      '10.3.0.2/29',
      '10.3.0.3/29',
      '10.3.0.4/29',
      '10.3.0.5/29',
      '10.3.0.6/29',
    ]);
    const full = await h.run('ADD', gateway(), { CNI_CONTAINERID: 'c9' });
    expect(full.json).toMatchObject({ code: 999, msg: expect.stringContaining('Assigned 0') });
  });

  it('dual stack: one segment per family', async () => {
    const h = await createHarness({ pools: ['10.1.0.0/24', 'fd00:1::/120'] });
    const out = await h.run(
      'ADD',
      gateway({ assign_ipv6: 'true', ipv6_pools: ['pool1'], ipv6_gateway: 'fd00:1::fe' }),
    );
    expect(out.json).toMatchObject({
      ips: [
        { address: expect.stringMatching(/\/24$/), gateway: '10.1.0.1' },
        { address: expect.stringMatching(/^fd00:1::[0-9a-f]+\/120$/), gateway: 'fd00:1::fe' },
      ],
    });
    expect((await h.client.reservations.get(RESERVATION)).spec.reservedCIDRs).toEqual([
      '10.1.0.1/32',
      '10.1.0.0/32',
      '10.1.0.255/32',
      'fd00:1::fe/128',
      'fd00:1::/128',
    ]);
  });

  it('reads the reservation once it holds the plan, and rewrites it when the plan changes', async () => {
    const h = await createHarness();
    await h.run('ADD', gateway());
    const first = await h.client.reservations.get(RESERVATION);
    await h.run('ADD', gateway(), { CNI_CONTAINERID: 'c2' });
    expect((await h.client.reservations.get(RESERVATION)).metadata.resourceVersion).toBe(
      first.metadata.resourceVersion,
    );
    await h.run('ADD', gateway({ ipv4_gateway: '10.1.0.254' }), { CNI_CONTAINERID: 'c3' });
    expect((await h.client.reservations.get(RESERVATION)).spec.reservedCIDRs).toEqual([
      '10.1.0.254/32',
      '10.1.0.0/32',
      '10.1.0.255/32',
    ]);
  });

  it('refuses to reserve a gateway already allocated, naming its holder, and assigns nothing', async () => {
    const h = await createHarness();
    await h.client.assignIp({
      ip: '10.1.0.1',
      hostname: NODE,
      handleId: 'old.c0',
      intendedUse: 'Workload',
    });
    const out = await h.run('ADD', gateway());
    expect(out.json).toMatchObject({
      code: 999,
      msg: '10.1.0.1, the gateway of 10.1.0.0/24, is allocated to handle old.c0: release it (netledgerctl ipam release --ip 10.1.0.1) before gateway mode can use the segment',
    });
    expect(await held(h, 'net1.c1')).toEqual([]);
    await expect(h.client.reservations.get(RESERVATION)).rejects.toMatchObject({
      code: 'DoesNotExist',
    });
  });

  it.each<[string, (h: Harness) => Promise<unknown>]>([
    [
      "calico-ipam's IP= on another network",
      (h) =>
        h.run('ADD', baseConf({ name: 'calico-net', type: 'calico' }), {
          CNI_CONTAINERID: 'calico-ctr',
          CNI_ARGS: 'IP=10.1.0.1',
        }),
    ],
    [
      'assignIp under another handle',
      (h) =>
        h.client.assignIp({
          ip: '10.1.0.1',
          hostname: NODE,
          handleId: 'calico-net.calico-ctr',
          intendedUse: 'Workload',
        }),
    ],
  ])('never returns a gateway that %s took after the reservation was made', async (_, take) => {
    const h = await createHarness();
    expect((await h.run('ADD', gateway())).exitCode).toBe(0);
    // A reservation keeps the address from auto-assignment only: a specific address is still
    // given out (Calico's AssignIP does not read reservations either).
    await take(h);
    expect(await held(h, 'calico-net.calico-ctr')).toEqual(['10.1.0.1']);
    const out = await h.run('ADD', gateway(), { CNI_CONTAINERID: 'c2' });
    expect(out.json).toMatchObject({
      code: 999,
      msg: '10.1.0.1, the gateway of 10.1.0.0/24, is allocated to handle calico-net.calico-ctr: release it (netledgerctl ipam release --ip 10.1.0.1) before gateway mode can use the segment',
    });
    expect(await held(h, 'net1.c2')).toEqual([]);
  });

  it.each([
    ['the gateway', 'IP=10.1.0.1', 'is a gateway, network or broadcast address'],
    ['the broadcast address', 'IP=10.1.0.255', 'is a gateway, network or broadcast address'],
    ['an address outside the segment', 'IP=10.2.0.5', 'is outside the network'],
  ])('refuses IP= of %s (4) before writing', async (_, args, msg) => {
    const h = await createHarness({ pools: ['10.1.0.0/24', '10.2.0.0/24'] });
    const out = await h.run('ADD', gateway(), { CNI_ARGS: args });
    expect(out.json).toMatchObject({ code: 4, msg: expect.stringContaining(msg) });
    expect(await h.client.reservations.list()).toEqual([]);
  });

  it('returns IP= with the segment prefix and gateway', async () => {
    const h = await createHarness();
    const out = await h.run('ADD', gateway(), { CNI_ARGS: 'IP=10.1.0.77' });
    expect(out.json).toMatchObject({ ips: [{ address: '10.1.0.77/24', gateway: '10.1.0.1' }] });
  });

  it('keeps the default (calico) mode unchanged: block mask, no gateway, one route per address', async () => {
    const h = await createHarness();
    const out = await h.run('ADD', baseConf());
    const address = (out.json!['ips'] as { address: string }[])[0]!.address;
    expect(out.json).toEqual({
      cniVersion: '1.0.0',
      ips: [{ address: expect.stringMatching(/\/26$/) }],
      routes: [{ dst: expect.stringMatching(/^10\.1\.0\.\d+\/26$/) }],
      dns: {},
    });
    expect(address).toMatch(/\/26$/);
    expect(await h.client.reservations.list()).toEqual([]);
  });
});

describe('ADD without ipam.mode: the main plugin chooses', () => {
  // What bridge and ptp hand their IPAM plugin: their own config, `type` theirs.
  const under = (type: string, ipam: Record<string, unknown> = {}) =>
    baseConf({ type, ipam: { ipv4_pools: ['pool0'], ...ipam } });

  it.each(['bridge', 'ptp'])(
    '%s gets gateway mode: the segment prefix and a gateway nobody else gets',
    async (type) => {
      const h = await createHarness();
      const out = await h.run('ADD', under(type));
      expect(out.json).toEqual({
        cniVersion: '1.0.0',
        ips: [{ address: expect.stringMatching(/^10\.1\.0\.\d+\/24$/), gateway: '10.1.0.1' }],
        dns: {},
      });
      expect((await h.client.reservations.get(RESERVATION)).spec.reservedCIDRs).toEqual([
        '10.1.0.1/32',
        '10.1.0.0/32',
        '10.1.0.255/32',
      ]);
    },
  );

  it('a conflist entry (bridge, name and cniVersion added by the runtime) gets gateway mode', async () => {
    const h = await createHarness();
    const entry = { type: 'bridge', bridge: 'cni0', isGateway: true, ipam: under('bridge').ipam };
    const out = await h.run('ADD', { cniVersion: '1.1.0', name: 'net1', ...entry });
    expect(out.json).toMatchObject({ ips: [{ gateway: '10.1.0.1' }] });
  });

  it('bridge without ipv4_pools is refused (7), naming the key and the main plugin, with nothing written', async () => {
    const h = await createHarness({ registerNode: false });
    const out = await h.run('ADD', baseConf({ type: 'bridge' }));
    expect(out).toMatchObject({
      exitCode: 1,
      json: {
        code: 7,
        msg: 'network net1: gateway mode (the default under main plugin "bridge") needs ipv4_pools: the pools of the segment',
      },
    });
    expect(await h.client.nodes.list()).toEqual([]);
    expect(await h.client.reservations.list()).toEqual([]);
    expect((await h.ds.list({ kind: 'IPAMBlock' })).items).toEqual([]);
  });

  it('an explicit "mode": "calico" under bridge keeps calico-ipam\'s result', async () => {
    const h = await createHarness();
    const out = await h.run('ADD', under('bridge', { mode: 'calico' }));
    expect(out.json).toMatchObject({ ips: [{ address: expect.stringMatching(/\/26$/) }] });
    expect((out.json!['ips'] as Record<string, unknown>[])[0]!['gateway']).toBeUndefined();
    expect(await h.client.reservations.list()).toEqual([]);
  });

  it('DEL and CHECK of an attachment added in calico mode work after bridge moved to gateway mode', async () => {
    const h = await createHarness();
    const added = await h.run('ADD', under('bridge', { mode: 'calico' }));
    expect(added.exitCode).toBe(0);
    const conf = under('bridge');
    expect((await h.run('CHECK', { ...conf, prevResult: added.json })).exitCode).toBe(0);
    expect((await h.run('DEL', conf)).exitCode).toBe(0);
    expect(await held(h, 'net1.c1')).toEqual([]);
  });
});
