import { beforeEach, describe, expect, it } from 'vitest';
import type { Harness } from '../test-plugin-harness.js';
import { NODE, baseConf, createHarness } from '../test-plugin-harness.js';
import { kubePaths } from './kube-reads.js';
import type { FakeKubeApi } from './test-kube-api.js';
import { createFakeKubeApi } from './test-kube-api.js';
import { ANNOTATIONS } from './workload-annotations.js';

let h: Harness;
let api: FakeKubeApi;

const K8S = 'IgnoreUnknown=1;K8S_POD_NAMESPACE=ns1;K8S_POD_NAME=web-0';
const conf = (ipam: Record<string, unknown> = {}, top: Record<string, unknown> = {}) =>
  baseConf({
    ...top,
    ipam: { datastore_type: 'kubernetes', kubernetes: { kubeconfig: '/kc' }, ...ipam },
  });

async function run(
  command: string,
  c: Record<string, unknown> = conf(),
  env: Record<string, string> = {},
) {
  return h.run(command, c, { CNI_ARGS: K8S, ...env }, { kubeApi: async () => api });
}

const ips = (json: Record<string, unknown> | undefined): string[] =>
  ((json?.['ips'] ?? []) as { address: string }[]).map((i) => i.address);

beforeEach(async () => {
  h = await createHarness({ pools: [] });
  for (const [name, cidr, extra] of [
    ['default', '10.1.0.0/24', {}],
    ['pod-pool', '10.2.0.0/24', { assignmentMode: 'Manual' }],
    ['ns-pool', '10.3.0.0/24', { assignmentMode: 'Manual' }],
    ['v6', 'fd00:1::/120', {}],
  ] as const) {
    await h.client.pools.create({ metadata: { name }, spec: { cidr, ...extra } });
  }
  api = createFakeKubeApi();
  api.namespace('ns1');
  api.pod('ns1', 'web-0');
});

describe('ADD for a Kubernetes pod on the kubernetes datastore', () => {
  it('takes pools from the pod over the namespace over the config', async () => {
    const c = conf({ ipv4_pools: ['default'] });
    expect(ips((await run('ADD', c)).json)[0]).toMatch(/^10\.1\.0\./);

    api.namespace('ns1', { annotations: { [ANNOTATIONS.ipv4Pools]: '["ns-pool"]' } });
    expect(ips((await run('ADD', c, { CNI_CONTAINERID: 'c2' })).json)[0]).toMatch(/^10\.3\.0\./);

    api.pod('ns1', 'web-0', { annotations: { [ANNOTATIONS.ipv4Pools]: '["10.2.0.0/24"]' } });
    expect(ips((await run('ADD', c, { CNI_CONTAINERID: 'c3' })).json)[0]).toMatch(/^10\.2\.0\./);
    expect(api.reads).toContain(kubePaths.pod('ns1', 'web-0'));
    expect(api.reads).toContain(kubePaths.namespace('ns1'));
  });

  it('assigns the families of ipFamilies, with ipv6pools', async () => {
    api.pod('ns1', 'web-0', {
      annotations: {
        [ANNOTATIONS.ipFamilies]: '["IPv4","IPv6"]',
        [ANNOTATIONS.ipv6Pools]: '["v6"]',
      },
    });
    const out = await run('ADD');
    expect(out.exitCode).toBe(0);
    expect(ips(out.json)).toEqual([
      expect.stringMatching(/^10\.1\.0\./),
      expect.stringMatching(/^fd00:1::/),
    ]);
  });

  it('passes the namespace labels to pools with a namespaceSelector', async () => {
    await h.client.pools.update({
      ...(await h.client.pools.get('default')),
      spec: { cidr: '10.1.0.0/24', disabled: true },
    });
    await h.client.pools.create({
      metadata: { name: 'team-a' },
      spec: { cidr: '10.4.0.0/24', namespaceSelector: 'team == "a"', allowedUses: ['Workload'] },
    });
    const refused = await run('ADD');
    expect(refused.json).toMatchObject({ code: 999 });
    api.namespace('ns1', { labels: { team: 'a' } });
    const out = await run('ADD');
    expect(ips(out.json)[0]).toMatch(/^10\.4\.0\./);
  });

  it('assigns ipAddrs through IPAM as /32 and /128 under the container handle', async () => {
    api.pod('ns1', 'web-0', { annotations: { [ANNOTATIONS.ipAddrs]: '["10.1.0.7","fd00:1::7"]' } });
    const out = await run('ADD');
    expect(ips(out.json)).toEqual(['10.1.0.7/32', 'fd00:1::7/128']);
    expect((await h.client.ipsByHandle('net1.c1')).sort()).toEqual(['10.1.0.7', 'fd00:1::7']);
    expect(await h.client.getAssignmentAttributes('10.1.0.7')).toMatchObject({
      activeOwnerAttrs: { namespace: 'ns1', pod: 'web-0', node: NODE },
    });
  });

  it('releases the first ipAddrs address when the second cannot be assigned', async () => {
    await h.client.assignIp({ ip: 'fd00:1::7', hostname: NODE, handleId: 'other' });
    api.pod('ns1', 'web-0', { annotations: { [ANNOTATIONS.ipAddrs]: '["10.1.0.7","fd00:1::7"]' } });
    const out = await run('ADD');
    expect(out.exitCode).toBe(1);
    await expect(h.client.ipsByHandle('net1.c1')).rejects.toMatchObject({ code: 'DoesNotExist' });
    expect((await h.client.getUtilization({ pools: ['default'] }))[0]!.inUse).toBe(0);
  });

  it('returns ipAddrsNoIpam unassigned only with feature_control.ip_addrs_no_ipam', async () => {
    api.pod('ns1', 'web-0', { annotations: { [ANNOTATIONS.ipAddrsNoIpam]: '["192.0.2.5"]' } });
    expect((await run('ADD')).json).toMatchObject({
      code: 7,
      msg: 'requested feature is not enabled: ip_addrs_no_ipam',
    });
    const out = await run('ADD', conf({}, { feature_control: { ip_addrs_no_ipam: true } }));
    expect(out.json).toMatchObject({ ips: [{ address: '192.0.2.5/32' }] });
    await expect(h.client.ipsByHandle('net1.c1')).rejects.toMatchObject({ code: 'DoesNotExist' });
  });

  it('refuses floatingIPs unless feature_control.floating_ips, before assigning anything', async () => {
    api.pod('ns1', 'web-0', { annotations: { [ANNOTATIONS.floatingIps]: '["203.0.113.9"]' } });
    expect((await run('ADD')).json).toMatchObject({
      code: 7,
      msg: 'requested feature is not enabled: floating_ips',
    });
    await expect(h.client.ipsByHandle('net1.c1')).rejects.toMatchObject({ code: 'DoesNotExist' });
    const out = await run('ADD', conf({ feature_control: { floating_ips: true } }));
    expect(ips(out.json)[0]).toMatch(/^10\.1\.0\./);
  });

  it.each([
    [
      'a pod that does not exist',
      () => api.remove(kubePaths.pod('ns1', 'web-0')),
      3,
      'pod ns1/web-0 not found in the Kubernetes API',
    ],
    [
      'a namespace that does not exist',
      () => api.remove(kubePaths.namespace('ns1')),
      3,
      'failed to get namespace ns1: not found in the Kubernetes API',
    ],
    [
      'bad annotation JSON',
      () => api.pod('ns1', 'web-0', { annotations: { [ANNOTATIONS.ipv4Pools]: '[' } }),
      7,
      /error parsing cni.projectcalico.org\/ipv4pools/,
    ],
  ])('fails for %s with code %s, assigning nothing', async (_what, setup, code, msg) => {
    setup();
    const out = await run('ADD');
    expect(out.exitCode).toBe(1);
    expect(out.json).toMatchObject({ code });
    expect(out.json?.['msg']).toMatch(msg);
    expect((await h.client.getUtilization())[0]!.inUse).toBe(0);
  });

  it('reads no pod outside Kubernetes, on other stores or without the API', async () => {
    await h.run('ADD', conf(), {}, { kubeApi: async () => api });
    await h.run(
      'ADD',
      baseConf(),
      { CNI_ARGS: K8S, CNI_CONTAINERID: 'c2' },
      { kubeApi: async () => api },
    );
    await h.run('ADD', conf(), { CNI_ARGS: K8S, CNI_CONTAINERID: 'c3' });
    expect(api.reads).toEqual([]);
  });

  it('CHECK finds a pod on its handle, and an ipAddrsNoIpam pod by its annotation', async () => {
    const added = await run('ADD');
    expect((await run('CHECK', { ...conf(), prevResult: added.json })).exitCode).toBe(0);
    api.pod('ns1', 'raw', { annotations: { [ANNOTATIONS.ipAddrsNoIpam]: '["192.0.2.5"]' } });
    const rawArgs = { CNI_ARGS: 'IgnoreUnknown=1;K8S_POD_NAMESPACE=ns1;K8S_POD_NAME=raw' };
    const prevResult = { ips: [{ address: '192.0.2.5/32' }] };
    const check = (prev: object) =>
      h.run(
        'CHECK',
        { ...conf(), prevResult: prev },
        { CNI_CONTAINERID: 'c9', ...rawArgs },
        {
          kubeApi: async () => api,
        },
      );
    expect((await check(prevResult)).exitCode).toBe(0);
    expect((await check({ ips: [{ address: '192.0.2.6/32' }] })).json).toMatchObject({ code: 999 });
    api.remove(kubePaths.pod('ns1', 'raw'));
    expect((await check(prevResult)).json).toMatchObject({ code: 3 });
  });

  it('DEL releases as usual, and a pod that is gone is no error', async () => {
    await run('ADD');
    api.remove(kubePaths.pod('ns1', 'web-0'));
    expect((await run('DEL')).exitCode).toBe(0);
    await expect(h.client.ipsByHandle('net1.c1')).rejects.toMatchObject({ code: 'DoesNotExist' });
    expect(api.reads.filter((r) => r.includes('/pods/'))).toHaveLength(1);
  });
});

describe('KubeVirt VM address persistence', () => {
  const LAUNCHER = 'virt-launcher-vm1-abcde';
  const TARGET = 'virt-launcher-vm1-fghij';
  const launcherArgs = (pod: string) => `IgnoreUnknown=1;K8S_POD_NAMESPACE=ns1;K8S_POD_NAME=${pod}`;
  const owner = {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    name: 'vm1',
    uid: 'vmi-uid-1',
    controller: true,
  };
  const HANDLE = 'net1.vmi.ns1.vm1';

  beforeEach(() => {
    api.vm('ns1', 'vm1', { uid: 'vm-uid-1' });
    api.vmi('ns1', 'vm1', {
      uid: 'vmi-uid-1',
      ownerReferences: [
        {
          apiVersion: 'kubevirt.io/v1',
          kind: 'VirtualMachine',
          name: 'vm1',
          uid: 'vm-uid-1',
          controller: true,
        },
      ],
    });
    api.pod('ns1', LAUNCHER, { ownerReferences: [owner] });
    api.pod('ns1', TARGET, {
      ownerReferences: [owner],
      labels: { 'kubevirt.io/migrationJobUID': 'mig-1' },
    });
  });
  const add = (pod: string, id: string) =>
    run('ADD', conf(), { CNI_ARGS: launcherArgs(pod), CNI_CONTAINERID: id });
  const del = (pod: string, id: string) =>
    run('DEL', conf(), { CNI_ARGS: launcherArgs(pod), CNI_CONTAINERID: id });

  it('keeps the VM address across pods, migration and pod deletion; releases it when the VM goes', async () => {
    const first = await add(LAUNCHER, 'c1');
    expect(first.exitCode).toBe(0);
    const ip = ips(first.json)[0]!.split('/')[0]!;
    expect(await h.client.ipsByHandle(HANDLE)).toEqual([ip]);
    expect(await h.client.getAssignmentAttributes(ip)).toMatchObject({
      activeOwnerAttrs: {
        pod: LAUNCHER,
        namespace: 'ns1',
        'vmi-name': 'vm1',
        'vmi-uid': 'vmi-uid-1',
        'vm-uid': 'vm-uid-1',
      },
    });

    // A migration target takes the same address as alternate owner, with no routes.
    const target = await add(TARGET, 'c2');
    expect(target.json).toMatchObject({ ips: [{ address: `${ip}/32` }], dns: {} });
    expect(target.json).not.toHaveProperty('routes');
    expect(await h.client.getAssignmentAttributes(ip)).toMatchObject({
      activeOwnerAttrs: { pod: LAUNCHER },
      alternateOwnerAttrs: { pod: TARGET, 'vmim-uid': 'mig-1' },
    });

    // The source pod goes: its owner attributes are cleared, the address stays.
    expect((await del(LAUNCHER, 'c1')).exitCode).toBe(0);
    const after = await h.client.getAssignmentAttributes(ip);
    expect(after.activeOwnerAttrs ?? {}).toEqual({});
    expect(after.alternateOwnerAttrs).toMatchObject({ pod: TARGET });
    expect(await h.client.ipsByHandle(HANDLE)).toEqual([ip]);

    // The target goes too while the VM lives: the address stays for the next pod.
    expect((await del(TARGET, 'c2')).exitCode).toBe(0);
    expect(await h.client.ipsByHandle(HANDLE)).toEqual([ip]);
    const again = await add(LAUNCHER, 'c3');
    expect(again.json).toMatchObject({ ips: [{ address: `${ip}/32` }] });

    // CHECK looks at the VM's handle, not the container's.
    expect(
      (
        await run(
          'CHECK',
          { ...conf(), prevResult: again.json },
          { CNI_ARGS: launcherArgs(LAUNCHER), CNI_CONTAINERID: 'c3' },
        )
      ).exitCode,
    ).toBe(0);

    // The VM is being deleted: DEL of its last pod releases the handle.
    api.vm('ns1', 'vm1', { uid: 'vm-uid-1', deletionTimestamp: '2030-01-01T00:00:00Z' });
    expect((await del(LAUNCHER, 'c3')).exitCode).toBe(0);
    await expect(h.client.ipsByHandle(HANDLE)).rejects.toMatchObject({ code: 'DoesNotExist' });
  });

  it('releases the VM address when the VM is already gone (deleted in the background)', async () => {
    const ip = ips((await add(LAUNCHER, 'c1')).json)[0]!.split('/')[0]!;
    expect(await h.client.ipsByHandle(HANDLE)).toEqual([ip]);
    api.remove(kubePaths.virtualMachine('ns1', 'vm1'));
    expect((await add(TARGET, 'c2')).json).toMatchObject({
      code: 999,
      msg: 'failed to get VM ns1/vm1 owning VMI vm1: not found',
    });
    expect((await del(LAUNCHER, 'c1')).exitCode).toBe(0);
    await expect(h.client.ipsByHandle(HANDLE)).rejects.toMatchObject({ code: 'DoesNotExist' });
  });

  it('with persistence disabled uses the pod handle and refuses migration targets', async () => {
    await h.client.setIpamConfig({
      ...(await h.client.getIpamConfig()),
      kubeVirtVMAddressPersistence: 'Disabled',
    });
    expect((await add(LAUNCHER, 'c1')).exitCode).toBe(0);
    expect(await h.client.ipsByHandle('net1.c1')).toHaveLength(1);
    expect((await add(TARGET, 'c2')).json).toMatchObject({
      code: 999,
      msg: 'live migration target pod is not allowed when KubeVirtVMAddressPersistence is disabled',
    });
    expect((await del(LAUNCHER, 'c1')).exitCode).toBe(0);
    await expect(h.client.ipsByHandle('net1.c1')).rejects.toMatchObject({ code: 'DoesNotExist' });
  });

  it('fails a migration target whose VM has no address, and a VMI whose UID differs', async () => {
    expect((await add(TARGET, 'c2')).json).toMatchObject({
      code: 999,
      msg: `migration target pod but no IP allocated to VMI handle ${HANDLE}`,
    });
    api.vmi('ns1', 'vm1', { uid: 'other' });
    expect((await add(LAUNCHER, 'c1')).json).toMatchObject({
      code: 999,
      msg: 'VMI UID mismatch: pod ownerReference has vmi-uid-1 but VMI resource has other',
    });
  });
});
