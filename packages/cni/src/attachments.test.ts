// ADD, DEL, CHECK and GC per attachment (container AND interface), in-process on the memory store.
import { isIpamError } from '@netledger/ipam-core';
import { describe, expect, it } from 'vitest';
import { NODE, baseConf, createHarness } from './test-plugin-harness.js';
import type { Harness } from './test-plugin-harness.js';

const held = async (h: Harness, handle: string): Promise<string[]> =>
  h.client.ipsByHandle(handle).catch((e: unknown) => {
    if (isIpamError(e, 'DoesNotExist')) return [];
    throw e;
  });

type Step = readonly ['ADD' | 'DEL', string, string];
const env = (cid: string, ifname: string) => ({ CNI_CONTAINERID: cid, CNI_IFNAME: ifname });

/** Runs the steps; returns each ADD's stdout by attachment, all ADDs of one attachment in order. */
async function runSteps(h: Harness, steps: readonly Step[]): Promise<Map<string, string[]>> {
  const adds = new Map<string, string[]>();
  for (const [command, cid, ifname] of steps) {
    const out = await h.run(command, baseConf(), env(cid, ifname));
    expect(out, `${command} ${cid} ${ifname}: ${out.stdout}`).toMatchObject({ exitCode: 0 });
    if (command === 'ADD')
      adds.set(`${cid}/${ifname}`, [...(adds.get(`${cid}/${ifname}`) ?? []), out.stdout]);
  }
  return adds;
}

describe('ADD is idempotent per attachment, DEL frees one attachment', () => {
  it.each<[string, Step[], Record<string, number>]>([
    [
      'ADD twice on eth0: one address',
      [
        ['ADD', 'c1', 'eth0'],
        ['ADD', 'c1', 'eth0'],
      ],
      { 'net1.c1': 1 },
    ],
    [
      'ADD on eth0 and on eth1: one address each',
      [
        ['ADD', 'c1', 'eth0'],
        ['ADD', 'c1', 'eth1'],
        ['ADD', 'c1', 'eth1'],
      ],
      { 'net1.c1': 1, 'net1.c1.eth1': 1 },
    ],
    [
      'DEL on eth1 frees eth1 only',
      [
        ['ADD', 'c1', 'eth0'],
        ['ADD', 'c1', 'eth1'],
        ['DEL', 'c1', 'eth1'],
      ],
      { 'net1.c1': 1, 'net1.c1.eth1': 0 },
    ],
    [
      'DEL on eth0 frees eth0 only',
      [
        ['ADD', 'c1', 'eth0'],
        ['ADD', 'c1', 'eth1'],
        ['DEL', 'c1', 'eth0'],
      ],
      { 'net1.c1': 0, 'net1.c1.eth1': 1 },
    ],
    [
      "another container's DEL frees none of c1's",
      [
        ['ADD', 'c1', 'eth0'],
        ['ADD', 'c2', 'eth0'],
        ['DEL', 'c2', 'eth0'],
      ],
      { 'net1.c1': 1, 'net1.c2': 0 },
    ],
    [
      'ADD after DEL assigns again',
      [
        ['ADD', 'c1', 'net1'],
        ['DEL', 'c1', 'net1'],
        ['ADD', 'c1', 'net1'],
      ],
      { 'net1.c1.net1': 1 },
    ],
  ])('%s', async (_, steps, counts) => {
    const h = await createHarness();
    const adds = await runSteps(h, steps);
    for (const [handle, n] of Object.entries(counts)) expect(await held(h, handle)).toHaveLength(n);
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    expect((await h.client.getUtilization())[0]).toMatchObject({ inUse: total });
    // A repeated ADD (no DEL between) returns exactly what the first one returned.
    const deleted = new Set(steps.filter((s) => s[0] === 'DEL').map((s) => `${s[1]}/${s[2]}`));
    for (const [attachment, outs] of adds) {
      if (!deleted.has(attachment)) expect(new Set(outs).size).toBe(1);
    }
  });

  it('records the attachment on the address', async () => {
    const h = await createHarness();
    await h.run('ADD', baseConf(), env('c1', 'eth1'));
    const [ip] = await held(h, 'net1.c1.eth1');
    expect(await h.client.getAssignmentAttributes(ip!)).toMatchObject({
      handleId: 'net1.c1.eth1',
      activeOwnerAttrs: { node: NODE, containerID: 'c1', ifname: 'eth1' },
    });
  });

  it.each([
    ['IP=', { ipam: {} }, { CNI_ARGS: 'IP=10.1.0.77' }, ['10.1.0.77/32']],
    [
      'dual stack',
      { ipam: { assign_ipv6: 'true' } },
      {},
      [expect.stringMatching(/^10\.1\.0\.\d+\/26$/), expect.stringMatching(/^fd00:1::.+\/122$/)],
    ],
  ])('a repeated ADD with %s returns the same addresses', async (_, over, extra, ips) => {
    const h = await createHarness({ pools: ['10.1.0.0/24', 'fd00:1::/120'] });
    const first = await h.run('ADD', baseConf(over), extra);
    const again = await h.run('ADD', baseConf(over), extra);
    expect(first.json).toMatchObject({ ips: ips.map((address) => ({ address })) });
    expect(again.stdout).toBe(first.stdout);
  });

  it('refuses a repeated ADD that asks for something else, and assigns nothing more', async () => {
    const h = await createHarness({ pools: ['10.1.0.0/24', 'fd00:1::/120'] });
    await h.run('ADD', baseConf());
    const out = await h.run('ADD', baseConf({ ipam: { assign_ipv6: 'true' } }));
    expect(out.json).toMatchObject({
      code: 999,
      msg: expect.stringContaining('container c1 interface eth0 already holds [10.1.0.'),
    });
    const other = await h.run('ADD', baseConf(), { CNI_ARGS: 'IP=10.1.0.99' });
    expect(other.json).toMatchObject({ code: 999, msg: expect.stringContaining('DEL it first') });
    expect(await held(h, 'net1.c1')).toHaveLength(1);
  });

  it('IP= of the other family is assigned beside what the attachment holds (ipAddrs, one IP= per family)', async () => {
    const h = await createHarness({ pools: ['10.1.0.0/24', 'fd00:1::/120'] });
    const v4 = await h.run('ADD', baseConf(), { CNI_ARGS: 'IP=10.1.0.70' });
    const v6 = await h.run('ADD', baseConf(), { CNI_ARGS: 'IP=fd00:1::70' });
    expect(v4.json).toMatchObject({ ips: [{ address: '10.1.0.70/32' }] });
    expect(v6.json).toMatchObject({ ips: [{ address: 'fd00:1::70/128' }] });
    expect((await held(h, 'net1.c1')).sort()).toEqual(['10.1.0.70', 'fd00:1::70']);
    // Each, repeated, gives its own address back.
    expect((await h.run('ADD', baseConf(), { CNI_ARGS: 'IP=fd00:1::70' })).stdout).toBe(v6.stdout);
  });

  it("an allocation made without attachment attributes (calico-ipam's) is eth0's", async () => {
    const h = await createHarness();
    const { v4 } = await h.client.autoAssign({
      num4: 1,
      hostname: NODE,
      handleId: 'net1.c1',
      attrs: { node: NODE },
      intendedUse: 'Workload',
    });
    const add = await h.run('ADD', baseConf(), env('c1', 'eth0'));
    expect(add.json).toMatchObject({ ips: [{ address: v4.ips[0] }] });
    expect((await h.run('CHECK', baseConf(), env('c1', 'eth0'))).exitCode).toBe(0);
    await runSteps(h, [
      ['ADD', 'c1', 'eth1'],
      ['DEL', 'c1', 'eth1'],
    ]);
    expect(await held(h, 'net1.c1')).toEqual([v4.ips[0]!.split('/')[0]]);
    await runSteps(h, [['DEL', 'c1', 'eth0']]);
    expect(await held(h, 'net1.c1')).toEqual([]);
  });
});

describe('handles that coincide: container a on eth1, container a.eth1 on eth0', () => {
  it('ADD, CHECK and DEL of the other attachment leave the owner’s addresses alone', async () => {
    const h = await createHarness();
    const owner = await h.run('ADD', baseConf(), env('a', 'eth1'));
    expect(owner.exitCode).toBe(0);
    const [ip] = await held(h, 'net1.a.eth1');
    const add = await h.run('ADD', baseConf(), env('a.eth1', 'eth0'));
    expect(add.json).toMatchObject({
      code: 999,
      msg: 'netledger-ipam: handle net1.a.eth1 holds the addresses of container a interface eth1, not of container a.eth1 interface eth0',
    });
    expect(await h.run('CHECK', baseConf(), env('a.eth1', 'eth0'))).toMatchObject({
      exitCode: 1,
      json: { code: 999 },
    });
    expect((await h.run('DEL', baseConf(), env('a.eth1', 'eth0'))).exitCode).toBe(0);
    expect(await held(h, 'net1.a.eth1')).toEqual([ip]);
    expect((await h.run('CHECK', baseConf(), env('a', 'eth1'))).exitCode).toBe(0);
    expect((await h.run('DEL', baseConf(), env('a', 'eth1'))).exitCode).toBe(0);
    expect(await held(h, 'net1.a.eth1')).toEqual([]);
  });
});

describe('CHECK per attachment', () => {
  it('passes for each interface that holds addresses, fails for one that does not', async () => {
    const h = await createHarness();
    const eth0 = await h.run('ADD', baseConf(), env('c1', 'eth0'));
    expect(
      await h.run('CHECK', baseConf({ prevResult: eth0.json }), env('c1', 'eth0')),
    ).toMatchObject({ exitCode: 0 });
    expect(await h.run('CHECK', baseConf(), env('c1', 'eth1'))).toMatchObject({
      exitCode: 1,
      json: { code: 999, msg: 'netledger-ipam: no addresses are allocated to net1.c1.eth1' },
    });
  });
});

describe('GC compares container AND interface', () => {
  const gc = (valid: unknown[]) =>
    baseConf({ cniVersion: '1.1.0', 'cni.dev/valid-attachments': valid });
  const noEnv = { CNI_CONTAINERID: '', CNI_IFNAME: '' };

  it.each<[string, unknown[], Record<string, number>]>([
    [
      'eth0 valid: eth1 released',
      [{ containerID: 'c1', ifname: 'eth0' }],
      { 'net1.c1': 1, 'net1.c1.eth1': 0, 'net1.c2': 0 },
    ],
    [
      'eth1 valid: eth0 released',
      [{ containerID: 'c1', ifname: 'eth1' }],
      { 'net1.c1': 0, 'net1.c1.eth1': 1, 'net1.c2': 0 },
    ],
    [
      'an entry without ifname covers every interface of its container',
      [{ containerID: 'c1' }],
      { 'net1.c1': 1, 'net1.c1.eth1': 1, 'net1.c2': 0 },
    ],
    [
      'both interfaces and the other container valid: nothing released',
      [
        { containerID: 'c1', ifname: 'eth0' },
        { containerID: 'c1', ifname: 'eth1' },
        { containerID: 'c2', ifname: 'eth0' },
      ],
      { 'net1.c1': 1, 'net1.c1.eth1': 1, 'net1.c2': 1 },
    ],
  ])('%s', async (_, valid, counts) => {
    const h = await createHarness();
    const v11 = baseConf({ cniVersion: '1.1.0' });
    for (const [cid, ifname] of [
      ['c1', 'eth0'],
      ['c1', 'eth1'],
      ['c2', 'eth0'],
    ] as const)
      expect((await h.run('ADD', v11, env(cid, ifname))).exitCode).toBe(0);
    expect(await h.run('GC', gc(valid), noEnv)).toMatchObject({ exitCode: 0, stdout: '' });
    for (const [handle, n] of Object.entries(counts)) expect(await held(h, handle)).toHaveLength(n);
  });

  it('keeps an allocation without attachment attributes while its container has any valid interface', async () => {
    const h = await createHarness();
    await h.client.autoAssign({
      num4: 1,
      hostname: NODE,
      handleId: 'net1.c1',
      attrs: { node: NODE },
      intendedUse: 'Workload',
    });
    await h.run('GC', gc([{ containerID: 'c1', ifname: 'eth1' }]), noEnv);
    expect(await held(h, 'net1.c1')).toHaveLength(1);
    await h.run('GC', gc([]), noEnv);
    expect(await held(h, 'net1.c1')).toHaveLength(0);
  });

  it("never releases a KubeVirt VM's addresses: they follow the VM, not an attachment", async () => {
    const h = await createHarness();
    await h.client.autoAssign({
      num4: 1,
      hostname: NODE,
      handleId: 'net1.vmi.ns1.vm1',
      attrs: { node: NODE, namespace: 'ns1', pod: 'virt-launcher-vm1-x', 'vmi-name': 'vm1' },
      intendedUse: 'Workload',
    });
    await h.run('GC', gc([]), noEnv);
    expect(await held(h, 'net1.vmi.ns1.vm1')).toHaveLength(1);
  });

  it('refuses a config without valid-attachments, releasing nothing (7)', async () => {
    const h = await createHarness();
    await h.run('ADD', baseConf({ cniVersion: '1.1.0' }), env('c1', 'eth1'));
    const out = await h.run('GC', baseConf({ cniVersion: '1.1.0' }), noEnv);
    expect(out.json).toMatchObject({ code: 7, msg: expect.stringContaining('valid-attachments') });
    expect(await held(h, 'net1.c1.eth1')).toHaveLength(1);
  });
});
