import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createK8sDatastore } from '@netledger/datastore-k8s';
import type { Datastore, IpamClient } from '@netledger/ipam-core';
import { createIpamClient } from '@netledger/ipam-core';
import { createTempDir, startKubeApiserver } from '@netledger/testkit';
import type { KubeApiserverFixture } from '@netledger/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, cniEnv, execPlugin, requirePlugin } from './exec-harness.js';

// bin/netledger-ipam on `datastore_type: kubernetes` against the real kube-apiserver, run as a
// runtime runs it (CNI_* env, the netconf on stdin), authenticated as the cni-plugin
// ServiceAccount with apps/cni-plugin/deploy/rbac.yaml applied: pods and namespaces are created
// through the API with Calico's annotations, and the plugin reads them.
let api: KubeApiserverFixture;
let dir: { path: string; remove: () => Promise<void> };
let admin: Datastore;
let ipam: IpamClient;
/** A kubeconfig whose current context is the cni-plugin ServiceAccount's token. */
let pluginKubeconfig: string;

const NODE = 'worker-1';
const NETWORK = 'k8s-pod-network';

async function kubectlOk(args: string[], input?: string): Promise<string> {
  const r = await api.kubectl(args, input === undefined ? {} : { input });
  if (r.status !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** Creates (or updates) objects given as JSON through kubectl, as the admin. */
const apply = (...items: object[]): Promise<string> =>
  kubectlOk(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));

const namespace = (name: string, o: { labels?: object; annotations?: object } = {}) => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, ...o },
});

const pod = (
  ns: string,
  name: string,
  metadata: { annotations?: object; labels?: object; ownerReferences?: object[] } = {},
) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: ns, ...metadata },
  spec: { containers: [{ name: 'c', image: 'registry.invalid/none' }] },
});

const netconf = (ipam: Record<string, unknown> = {}, top: Record<string, unknown> = {}): string =>
  JSON.stringify({
    cniVersion: '1.0.0',
    name: NETWORK,
    type: 'calico',
    datastore_type: 'kubernetes',
    kubernetes: { kubeconfig: pluginKubeconfig },
    nodename: NODE,
    ...top,
    ipam: {
      type: 'netledger-ipam',
      ipam_lock_file: join(dir.path, 'ipam.lock'),
      log_level: 'error',
      ...ipam,
    },
  });

/** Runs the plugin for pod `ns/name` as container `id`. */
function cni(command: string, ns: string, name: string, id: string, conf = netconf()) {
  return execPlugin(
    cniEnv(command, id, {
      CNI_ARGS: `IgnoreUnknown=1;K8S_POD_NAMESPACE=${ns};K8S_POD_NAME=${name};K8S_POD_INFRA_CONTAINER_ID=${id}`,
    }),
    conf,
  );
}

const addresses = (json: Record<string, unknown> | undefined): string[] =>
  ((json?.['ips'] ?? []) as { address: string }[]).map((i) => i.address);

beforeAll(async () => {
  requirePlugin();
  dir = await createTempDir('netledger-cni-k8s-');
  api = await startKubeApiserver();
  await kubectlOk(['apply', '-f', join(ROOT, 'packages', 'datastore-k8s', 'crds')]);
  await kubectlOk(['apply', '-f', join(ROOT, 'apps', 'cni-plugin', 'test', 'fixtures')]);
  await kubectlOk(['apply', '-f', join(ROOT, 'apps', 'cni-plugin', 'deploy', 'rbac.yaml')]);
  await kubectlOk(['wait', '--for=condition=Established', 'crd', '--all', '--timeout=60s']);
  const text = readFileSync(api.kubeconfigPath, 'utf8');
  pluginKubeconfig = join(dir.path, 'cni-plugin.kubeconfig');
  writeFileSync(
    pluginKubeconfig,
    text.replace(
      /^current-context: .*$/m,
      `current-context: ${JSON.stringify(api.contexts['cni-plugin'])}`,
    ),
  );
  admin = createK8sDatastore({ kubeconfig: api.kubeconfigPath });
  ipam = createIpamClient({ datastore: admin });
  await ipam.nodes.create({ metadata: { name: NODE } });
  const pools: [string, string, Record<string, unknown>][] = [
    ['conf-pool', '10.70.0.0/24', { assignmentMode: 'Manual' }],
    ['ns-pool', '10.71.0.0/24', { assignmentMode: 'Manual' }],
    ['pod-pool', '10.72.0.0/24', { assignmentMode: 'Manual' }],
    ['team-a', '10.73.0.0/24', { namespaceSelector: 'team == "a"' }],
    ['team-b', '10.74.0.0/24', { namespaceSelector: 'team == "b"' }],
    ['static', '10.75.0.0/24', { assignmentMode: 'Manual' }],
    ['vms', '10.76.0.0/24', { namespaceSelector: 'kubevirt == "yes"' }],
    ['gateway-pool', '10.77.0.0/24', { assignmentMode: 'Manual' }],
  ];
  for (const [name, cidr, spec] of pools) {
    await ipam.pools.create({
      metadata: { name },
      spec: { cidr, blockSize: 28, allowedUses: ['Workload'], ...spec },
    });
  }
}, 180_000);

afterAll(async () => {
  await admin?.close();
  await api?.stop();
  await dir?.remove();
});

describe('netledger-ipam on the kubernetes datastore, as the cni-plugin ServiceAccount', () => {
  it('takes the pool from the pod annotation over the namespace annotation over the netconf', async () => {
    await apply(
      namespace('plain'),
      namespace('pooled', {
        annotations: { 'cni.projectcalico.org/ipv4pools': '["ns-pool"]' },
      }),
      pod('plain', 'web-0'),
      pod('pooled', 'web-1'),
      pod('pooled', 'web-2', {
        annotations: { 'cni.projectcalico.org/ipv4pools': '["10.72.0.0/24"]' },
      }),
    );
    const conf = netconf({ ipv4_pools: ['conf-pool'] });
    const fromConf = cni('ADD', 'plain', 'web-0', 'c-web-0', conf);
    const fromNs = cni('ADD', 'pooled', 'web-1', 'c-web-1', conf);
    const fromPod = cni('ADD', 'pooled', 'web-2', 'c-web-2', conf);
    for (const r of [fromConf, fromNs, fromPod]) expect(r.stderr).toBe('');
    expect(addresses(fromConf.json)).toEqual([expect.stringMatching(/^10\.70\.0\.\d+\/28$/)]);
    expect(addresses(fromNs.json)).toEqual([expect.stringMatching(/^10\.71\.0\.\d+\/28$/)]);
    expect(addresses(fromPod.json)).toEqual([expect.stringMatching(/^10\.72\.0\.\d+\/28$/)]);

    // Recorded in Calico's CRDs under the container's handle, with the pod's attributes.
    const ip = addresses(fromPod.json)[0]!.split('/')[0]!;
    expect(await ipam.ipsByHandle(`${NETWORK}.c-web-2`)).toEqual([ip]);
    expect(await ipam.getAssignmentAttributes(ip)).toMatchObject({
      activeOwnerAttrs: { namespace: 'pooled', pod: 'web-2', node: NODE },
    });
    const handles = await kubectlOk(['get', 'ipamhandles', '-o', 'name']);
    expect(handles).toContain(`ipamhandle.crd.projectcalico.org/${NETWORK}.c-web-2`);

    expect(cni('DEL', 'pooled', 'web-2', 'c-web-2', conf).status).toBe(0);
    await expect(ipam.ipsByHandle(`${NETWORK}.c-web-2`)).rejects.toMatchObject({
      code: 'DoesNotExist',
    });
  });

  it("chooses pools by their namespaceSelector with the namespace's labels", async () => {
    await apply(
      namespace('team-a', { labels: { team: 'a' } }),
      namespace('team-b', { labels: { team: 'b' } }),
      namespace('nobody'),
      pod('team-a', 'api-0'),
      pod('team-b', 'api-0'),
      pod('nobody', 'api-0'),
    );
    const a = cni('ADD', 'team-a', 'api-0', 'c-a');
    const b = cni('ADD', 'team-b', 'api-0', 'c-b');
    expect(addresses(a.json)).toEqual([expect.stringMatching(/^10\.73\.0\./)]);
    expect(addresses(b.json)).toEqual([expect.stringMatching(/^10\.74\.0\./)]);
    const none = cni('ADD', 'nobody', 'api-0', 'c-n');
    expect(none.json).toMatchObject({ code: 999 });
    expect(none.json?.['msg']).toBe('no configured Calico pools for node worker-1');
    await expect(ipam.ipsByHandle(`${NETWORK}.c-n`)).rejects.toMatchObject({
      code: 'DoesNotExist',
    });
  });

  it("gateway mode (install-cni's conflist) reserves the segment's gateway addresses, as its RBAC allows", async () => {
    await apply(namespace('gateway'), pod('gateway', 'gw-0'));
    const conf = netconf({ mode: 'gateway', ipv4_pools: ['gateway-pool'] });
    const r = cni('ADD', 'gateway', 'gw-0', 'c-gw-0', conf);
    expect(r.status, r.stdout).toBe(0);
    expect(r.json).toMatchObject({
      ips: [{ address: expect.stringMatching(/^10\.77\.0\.\d+\/24$/), gateway: '10.77.0.1' }],
    });
    const reservations = JSON.parse(await kubectlOk(['get', 'ipreservations', '-o', 'json'])) as {
      items: { metadata: { name: string }; spec: { reservedCIDRs: string[] } }[];
    };
    const reservation = reservations.items.find((i) =>
      i.metadata.name.startsWith('netledger-gw-k8s-pod-network-'),
    );
    expect(reservation?.spec.reservedCIDRs.sort()).toEqual(
      ['10.77.0.0/32', '10.77.0.1/32', '10.77.0.255/32'].sort(),
    );
    expect(cni('DEL', 'gateway', 'gw-0', 'c-gw-0', conf).status).toBe(0);
  });

  it('assigns the specific addresses of ipAddrs through IPAM, and refuses a taken one', async () => {
    await apply(
      namespace('static'),
      pod('static', 'db-0', { annotations: { 'cni.projectcalico.org/ipAddrs': '["10.75.0.9"]' } }),
      pod('static', 'db-1', { annotations: { 'cni.projectcalico.org/ipAddrs': '["10.75.0.9"]' } }),
    );
    const r = cni('ADD', 'static', 'db-0', 'c-db-0');
    expect(r.json).toMatchObject({ ips: [{ address: '10.75.0.9/32' }] });
    expect(await ipam.ipsByHandle(`${NETWORK}.c-db-0`)).toEqual(['10.75.0.9']);
    const taken = cni('ADD', 'static', 'db-1', 'c-db-1');
    expect(taken.status).toBe(1);
    expect(taken.json).toMatchObject({ code: 999 });
    expect(cni('DEL', 'static', 'db-0', 'c-db-0').status).toBe(0);
    expect(cni('ADD', 'static', 'db-1', 'c-db-1').json).toMatchObject({
      ips: [{ address: '10.75.0.9/32' }],
    });
  });

  it('honours ipAddrsNoIpam and floatingIPs only behind their feature_control flags', async () => {
    await apply(
      namespace('flags'),
      pod('flags', 'raw', {
        annotations: { 'cni.projectcalico.org/ipAddrsNoIpam': '["192.0.2.10"]' },
      }),
      pod('flags', 'nat', {
        annotations: { 'cni.projectcalico.org/floatingIPs': '["203.0.113.7"]' },
      }),
    );
    const conf = netconf({ ipv4_pools: ['conf-pool'] });
    expect(cni('ADD', 'flags', 'raw', 'c-raw', conf).json).toMatchObject({
      code: 7,
      msg: 'requested feature is not enabled: ip_addrs_no_ipam',
    });
    expect(cni('ADD', 'flags', 'nat', 'c-nat', conf).json).toMatchObject({
      code: 7,
      msg: 'requested feature is not enabled: floating_ips',
    });
    await expect(ipam.ipsByHandle(`${NETWORK}.c-nat`)).rejects.toMatchObject({
      code: 'DoesNotExist',
    });
    const enabled = netconf(
      { ipv4_pools: ['conf-pool'] },
      { feature_control: { ip_addrs_no_ipam: true, floating_ips: true } },
    );
    expect(cni('ADD', 'flags', 'raw', 'c-raw', enabled).json).toMatchObject({
      ips: [{ address: '192.0.2.10/32' }],
    });
    await expect(ipam.ipsByHandle(`${NETWORK}.c-raw`)).rejects.toMatchObject({
      code: 'DoesNotExist',
    });
    expect(addresses(cni('ADD', 'flags', 'nat', 'c-nat', enabled).json)).toEqual([
      expect.stringMatching(/^10\.70\.0\./),
    ]);
  });

  it('gives clear errors: a pod that does not exist (3), bad annotation JSON (7)', async () => {
    await apply(
      namespace('broken'),
      pod('broken', 'bad', { annotations: { 'cni.projectcalico.org/ipv4pools': '[conf-pool' } }),
    );
    expect(cni('ADD', 'broken', 'ghost', 'c-ghost').json).toMatchObject({
      code: 3,
      msg: 'pod broken/ghost not found in the Kubernetes API',
    });
    const bad = cni('ADD', 'broken', 'bad', 'c-bad');
    expect(bad.json).toMatchObject({ code: 7 });
    expect(bad.json?.['msg']).toMatch(
      /^error parsing cni.projectcalico.org\/ipv4pools "\[conf-pool": /,
    );
    // A DEL for a pod the API no longer has still succeeds (nothing to release).
    expect(cni('DEL', 'broken', 'ghost', 'c-ghost').status).toBe(0);
  });

  it('keeps a KubeVirt VM address across its pods and migration, releasing it with the VM', async () => {
    await apply(namespace('vms', { labels: { kubevirt: 'yes' } }), {
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachine',
      // The finalizer holds the VM while "being deleted", as KubeVirt's controller does.
      metadata: { name: 'vm1', namespace: 'vms', finalizers: ['netledger.test/hold'] },
    });
    const vmUid = (
      await kubectlOk(['get', 'vm', 'vm1', '-n', 'vms', '-o', 'jsonpath={.metadata.uid}'])
    ).trim();
    await apply({
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachineInstance',
      metadata: {
        name: 'vm1',
        namespace: 'vms',
        ownerReferences: [
          {
            apiVersion: 'kubevirt.io/v1',
            kind: 'VirtualMachine',
            name: 'vm1',
            uid: vmUid,
            controller: true,
          },
        ],
      },
    });
    const vmiUid = (
      await kubectlOk(['get', 'vmi', 'vm1', '-n', 'vms', '-o', 'jsonpath={.metadata.uid}'])
    ).trim();
    const owner = {
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachineInstance',
      name: 'vm1',
      uid: vmiUid,
      controller: true,
    };
    await apply(
      pod('vms', 'virt-launcher-vm1-aaaaa', { ownerReferences: [owner] }),
      pod('vms', 'virt-launcher-vm1-bbbbb', {
        ownerReferences: [owner],
        labels: { 'kubevirt.io/migrationJobUID': 'mig-1' },
      }),
      pod('vms', 'virt-launcher-vm1-ccccc', { ownerReferences: [owner] }),
    );
    const handle = `${NETWORK}.vmi.vms.vm1`;
    const source = cni('ADD', 'vms', 'virt-launcher-vm1-aaaaa', 'c-src');
    const ip = addresses(source.json)[0]!.split('/')[0]!;
    expect(ip).toMatch(/^10\.76\.0\./);
    expect(await ipam.ipsByHandle(handle)).toEqual([ip]);
    expect(await ipam.getAssignmentAttributes(ip)).toMatchObject({
      activeOwnerAttrs: {
        pod: 'virt-launcher-vm1-aaaaa',
        'vmi-name': 'vm1',
        'vmi-uid': vmiUid,
        'vm-uid': vmUid,
      },
    });

    // The migration target gets the same address, as alternate owner, with no routes.
    const target = cni('ADD', 'vms', 'virt-launcher-vm1-bbbbb', 'c-tgt').json;
    expect(target).toMatchObject({ ips: [{ address: `${ip}/32` }], dns: {} });
    expect(target).not.toHaveProperty('routes');
    expect(await ipam.getAssignmentAttributes(ip)).toMatchObject({
      alternateOwnerAttrs: { pod: 'virt-launcher-vm1-bbbbb', 'vmim-uid': 'mig-1' },
    });

    // Both pods go while the VM lives: owner attributes cleared, the address kept.
    expect(cni('DEL', 'vms', 'virt-launcher-vm1-aaaaa', 'c-src').status).toBe(0);
    expect(cni('DEL', 'vms', 'virt-launcher-vm1-bbbbb', 'c-tgt').status).toBe(0);
    const kept = await ipam.getAssignmentAttributes(ip);
    expect(kept.handleId).toBe(handle);
    expect(kept.activeOwnerAttrs ?? {}).toEqual({});
    expect(kept.alternateOwnerAttrs ?? {}).toEqual({});

    // A new pod of the VM takes the same address back; CHECK finds it on the VM's handle.
    const again = cni('ADD', 'vms', 'virt-launcher-vm1-ccccc', 'c-new');
    expect(again.json).toMatchObject({ ips: [{ address: `${ip}/32` }] });
    const withPrev = JSON.stringify({
      ...(JSON.parse(netconf()) as object),
      prevResult: again.json,
    });
    expect(cni('CHECK', 'vms', 'virt-launcher-vm1-ccccc', 'c-new', withPrev).status).toBe(0);

    // The VM is being deleted: its last pod's DEL releases the handle.
    await kubectlOk(['delete', 'vm', 'vm1', '-n', 'vms', '--wait=false']);
    expect(cni('DEL', 'vms', 'virt-launcher-vm1-ccccc', 'c-new').status).toBe(0);
    await expect(ipam.ipsByHandle(handle)).rejects.toMatchObject({ code: 'DoesNotExist' });
    await kubectlOk([
      'patch',
      'vm',
      'vm1',
      '-n',
      'vms',
      '--type=merge',
      '-p',
      '{"metadata":{"finalizers":null}}',
    ]);
  });

  it('reads pods and namespaces by name only, as its RBAC allows, and is refused without it', async () => {
    const can = async (verb: string, what: string, ns?: string) =>
      (
        await api.kubectl(['auth', 'can-i', verb, what, ...(ns ? ['-n', ns] : [])], {
          as: 'cni-plugin',
        })
      ).stdout.trim();
    expect(await can('get', 'pods', 'plain')).toBe('yes');
    expect(await can('get', 'namespaces')).toBe('yes');
    expect(await can('get', 'virtualmachineinstances.kubevirt.io', 'vms')).toBe('yes');
    expect(await can('list', 'pods', 'plain')).toBe('no');
    expect(await can('update', 'pods', 'plain')).toBe('no');
    expect(await can('get', 'secrets', 'plain')).toBe('no');

    // The same role without the pod and namespace rule, for another ServiceAccount: its IPAM
    // works, a Kubernetes pod's ADD is refused by the API server (try again later, 11).
    const role = readFileSync(join(ROOT, 'apps', 'cni-plugin', 'deploy', 'rbac.yaml'), 'utf8')
      .replace(
        / {2}- apiGroups: \[''\]\n {4}resources: \['pods', 'namespaces'\]\n {4}verbs: \['get'\]\n/,
        '',
      )
      .replaceAll('netledger-cni-plugin', 'netledger-node-agent');
    expect(role).not.toContain("'pods'");
    await kubectlOk(['apply', '-f', '-'], role);
    const noPods = join(dir.path, 'node-agent.kubeconfig');
    writeFileSync(
      noPods,
      readFileSync(pluginKubeconfig, 'utf8').replace(
        /^current-context: .*$/m,
        `current-context: ${JSON.stringify(api.contexts['node-agent'])}`,
      ),
    );
    const conf = JSON.stringify({
      ...(JSON.parse(netconf({ ipv4_pools: ['conf-pool'] })) as object),
      kubernetes: { kubeconfig: noPods },
    });
    const refused = cni('ADD', 'plain', 'web-0', 'c-norbac', conf);
    expect(refused.json).toMatchObject({ code: 11 });
    expect(refused.json?.['msg']).toMatch(
      /forbids it for GET namespaces\/plain\/pods\/web-0: .*cannot get resource "pods"/,
    );
    await expect(ipam.ipsByHandle(`${NETWORK}.c-norbac`)).rejects.toMatchObject({
      code: 'DoesNotExist',
    });
  });
});
