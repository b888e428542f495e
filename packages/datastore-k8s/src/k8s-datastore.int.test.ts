import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Datastore, IpamError } from '@netledger/ipam-core';
import { createIpamClient } from '@netledger/ipam-core';
import { BIG_SEQUENCE, BlockBuilder, buildPool } from '@netledger/testkit';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createSharedKube } from '../test/shared-kube.js';
import { affinityName, hostnameHash } from './calico-names.js';
import { createK8sDatastore } from './create-k8s-datastore.js';

// What only the Kubernetes store has: Calico's names and labels as kubectl shows them, the API
// server's own conflicts, soft delete, label upgrades, watch expiry, and each app's RBAC. One API
// server for the file; tests use names of their own instead of wiping.
const kube = createSharedKube();
const open: Datastore[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((d) => d.close()));
});
afterAll(() => kube.stop());

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

async function admin(): Promise<Datastore> {
  const ds = await kube.open();
  open.push(ds);
  return ds;
}

async function kubectl(args: string[], input?: string): Promise<string> {
  const api = await kube.get();
  const r = await api.kubectl(args, input === undefined ? {} : { input });
  if (r.status !== 0) throw new Error(`kubectl ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

async function errorOf(p: Promise<unknown>): Promise<IpamError> {
  return p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e as IpamError,
  );
}

describe('datastore-k8s on kube-apiserver', () => {
  it('writes Calico names and labels that kubectl shows, and the exact uint64 sequence number', async () => {
    const ds = await admin();
    const ipam = createIpamClient({ datastore: ds });
    await ipam.pools.create(buildPool('kubectl-pool', '10.50.0.0/16'));
    await ipam.nodes.create({ metadata: { name: 'kubectl-node' } });
    const { v4 } = await ipam.autoAssign({
      num4: 1,
      hostname: 'kubectl-node',
      handleId: 'Pod.Handle-1',
      intendedUse: 'Workload',
    });
    expect(v4.ips).toHaveLength(1);
    const octets = v4.ips[0]!.split('/')[0]!.split('.').map(Number);
    const last = octets[3]!;
    const block = `${octets.slice(0, 3).join('-')}-${last - (last % 64)}-26`;
    const yaml = await kubectl(['get', 'ipamblocks,blockaffinities,ipamhandles', '-o', 'yaml']);
    expect(yaml).toContain(`name: ${block}`);
    expect(yaml).toContain(`name: kubectl-node-${block}`);
    expect(yaml).toContain(`projectcalico.org/hostname-hash: ${hostnameHash('kubectl-node')}`);
    expect(yaml).toContain('projectcalico.org/affinity-type: host');
    expect(yaml).toContain('projectcalico.org/ip-version: "4"');
    expect(yaml).toContain('name: pod.handle-1');
    expect(yaml).toContain('handleID: Pod.Handle-1');
    expect(yaml).toMatch(/affinity: host:kubectl-node/);

    await ds.create({
      key: { kind: 'IPAMBlock', cidr: '10.51.0.0/30' },
      value: new BlockBuilder('10.51.0.0/30').allocate([0], 'h').build(),
    });
    const json = await kubectl(['get', 'ipamblock', '10-51-0-0-30', '-o', 'json']);
    expect(json).toContain(`"sequenceNumber": ${BIG_SEQUENCE}`);
  });

  it('a stale resourceVersion of a netledger-written object is refused by kubectl replace', async () => {
    const ds = await admin();
    const key = { kind: 'IPAMHandle', handleId: 'stale-replace' } as const;
    const v1 = await ds.create({
      key,
      value: { handleId: 'stale-replace', block: {}, deleted: false },
    });
    const stale = await kubectl(['get', 'ipamhandle', 'stale-replace', '-o', 'json']);
    await ds.update({ ...v1, value: { ...v1.value, block: { '10.0.0.0/26': 1 } } });
    const api = await kube.get();
    const r = await api.kubectl(['replace', '-f', '-'], { input: stale });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/Conflict|the object has been modified/);
    expect((await ds.get(key)).value.block).toEqual({ '10.0.0.0/26': 1 });
  });

  it('hashes long hostnames into affinity names and finds them by label', async () => {
    const ds = await admin();
    const host = `${'h'.repeat(60)}.${'x'.repeat(60)}.${'y'.repeat(60)}.${'z'.repeat(60)}`;
    const key = {
      kind: 'BlockAffinity',
      host,
      cidr: '10.52.0.0/26',
      affinityType: 'host',
    } as const;
    await ds.create({ key, value: { state: 'confirmed', deleted: false } });
    const name = affinityName(host, '10.52.0.0/26');
    expect(name).toHaveLength(252);
    expect(name).toMatch(/-10-52-0-0-26-[0-9a-f]{11}$/);
    const shown = await kubectl(['get', 'blockaffinity', name, '-o', 'jsonpath={.spec.node}']);
    expect(shown).toBe(host);
    const listed = await ds.list({ kind: 'BlockAffinity', host });
    expect(listed.items.map((kv) => kv.key)).toEqual([key]);
  });

  it('soft delete: a row marked deleted is invisible to lists, and a get completes its delete', async () => {
    const ds = await admin();
    const key = { kind: 'IPAMBlock', cidr: '10.53.0.0/30' } as const;
    await ds.create({ key, value: new BlockBuilder('10.53.0.0/30').build() });
    await kubectl([
      'patch',
      'ipamblock',
      '10-53-0-0-30',
      '--type',
      'merge',
      '-p',
      '{"spec":{"deleted":true}}',
    ]);
    const listed = await ds.list({ kind: 'IPAMBlock' });
    expect(listed.items.map((kv) => kv.key.cidr)).not.toContain('10.53.0.0/30');
    await expect(ds.get(key)).rejects.toMatchObject({ code: 'DoesNotExist' });
    const api = await kube.get();
    const gone = await api.kubectl(['get', 'ipamblock', '10-53-0-0-30']);
    expect(gone.stderr).toContain('NotFound');
  });

  it('adds the labels to affinities written without them (upgradeAffinityLabels)', async () => {
    const ds = await admin();
    await kubectl(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'crd.projectcalico.org/v1',
        kind: 'BlockAffinity',
        metadata: { name: 'old-node-10-54-0-0-26' },
        spec: { node: 'old-node', cidr: '10.54.0.0/26', state: 'confirmed', deleted: 'false' },
      }),
    );
    expect((await ds.list({ kind: 'BlockAffinity', host: 'old-node' })).items).toEqual([]);
    await ds.upgradeAffinityLabels!('old-node');
    const listed = await ds.list({ kind: 'BlockAffinity', host: 'old-node' });
    expect(listed.items.map((kv) => kv.key)).toEqual([
      { kind: 'BlockAffinity', host: 'old-node', cidr: '10.54.0.0/26', affinityType: 'host' },
    ]);
  });

  it('keeps Calico node data in the Kubernetes Node annotations, as KDD does', async () => {
    const ds = await admin();
    const created = await ds.create({
      key: { kind: 'Node', name: 'annotated-node' },
      value: { metadata: { name: 'annotated-node', labels: { rack: 'r1' } }, spec: {}, status: {} },
    });
    await kubectl(['label', 'node', 'annotated-node', 'zone=z1']);
    const current = await ds.get({ kind: 'Node', name: 'annotated-node' });
    expect(current.value.metadata.labels).toEqual({ rack: 'r1', zone: 'z1' });
    expect(current.revision).not.toBe(created.revision);
    await ds.update({
      ...current,
      value: {
        ...current.value,
        spec: { ipv4VXLANTunnelAddr: '10.55.0.1', bgp: { ipv4IPIPTunnelAddr: '10.55.0.2' } },
      },
    });
    const annotations = JSON.parse(
      await kubectl(['get', 'node', 'annotated-node', '-o', 'jsonpath={.metadata.annotations}']),
    ) as Record<string, string>;
    expect(annotations).toMatchObject({
      'projectcalico.org/IPv4VXLANTunnelAddr': '10.55.0.1',
      'projectcalico.org/IPv4IPIPTunnelAddr': '10.55.0.2',
      'projectcalico.org/labels': '{"rack":"r1"}',
    });
    const labels = await kubectl([
      'get',
      'node',
      'annotated-node',
      '-o',
      'jsonpath={.metadata.labels}',
    ]);
    expect(JSON.parse(labels)).toEqual({ zone: 'z1' });
    await expect(
      ds.update({ ...current, value: { ...current.value, spec: {} } }),
    ).rejects.toMatchObject({ code: 'UpdateConflict' });
  });

  it('maps errors to codes with messages naming the API server and the object', async () => {
    const ds = await admin();
    const api = await kube.get();
    const missing = await errorOf(ds.get({ kind: 'IPAMBlock', cidr: '10.56.0.0/26' }));
    expect(missing).toMatchObject({ code: 'DoesNotExist' });
    expect(missing.message).toContain(api.url);
    expect(missing.message).toContain('ipamblocks/10-56-0-0-26');
    const invalid = await errorOf(
      ds.create({
        key: { kind: 'IPAMConfig' },
        value: {
          strictAffinity: false,
          autoAllocateBlocks: true,
          maxBlocksPerHost: -1,
          ipCooldownSeconds: 0,
        },
      }),
    );
    expect(invalid).toMatchObject({ code: 'InvalidArgument' });
    expect(invalid.message).toContain('maxBlocksPerHost');
    const pool = await errorOf(
      ds.create({
        key: { kind: 'IPPool', name: 'v6-ipip' },
        value: buildPool('v6-ipip', 'fd00::/64', { ipipMode: 'Always' }),
      }),
    );
    expect(pool).toMatchObject({ code: 'InvalidArgument' });
    expect(pool.message).toContain('IPIP is not supported on IPv6 pools');
    expect(() => createK8sDatastore({ kubeconfig: '/nonexistent/kubeconfig' })).toThrow(
      /cannot load Kubernetes config from \/nonexistent\/kubeconfig/,
    );
    expect(() => createK8sDatastore({ kubeconfig: api.kubeconfigPath, context: 'nope' })).toThrow(
      /has no context "nope"/,
    );
  });

  it('watch: established once open, and WatchExpired for a compacted revision', async () => {
    const ds = await admin();
    const stream = ds.watch({ kind: 'IPAMHandle' });
    const first = stream[Symbol.asyncIterator]().next();
    await stream.established;
    await ds.create({
      key: { kind: 'IPAMHandle', handleId: 'watched-now' },
      value: { handleId: 'watched-now', block: {}, deleted: false },
    });
    expect(await first).toMatchObject({
      value: { type: 'added', kv: { key: { handleId: 'watched-now' } } },
    });
    stream.close();
    const old = ds.watch({ kind: 'IPAMHandle' }, { revision: '1' });
    const err = await errorOf(
      (async () => {
        for await (const _ of old) void _;
      })(),
    );
    expect(err).toMatchObject({ code: 'WatchExpired' });
    expect(err.message).toContain('ipamhandles');
  });
});

describe('RBAC: each app can do its job and nothing else', () => {
  it('applies the manifests; the plugin assigns and releases, ctl reads, both are refused outside', async () => {
    const api = await kube.get();
    await kubectl(['apply', '-f', join(REPO, 'apps/cni-plugin/deploy/rbac.yaml')]);
    await kubectl(['apply', '-f', join(REPO, 'apps/ctl/deploy/rbac.yaml')]);
    const adminDs = await admin();
    const setup = createIpamClient({ datastore: adminDs });
    await setup.pools.create(buildPool('rbac-pool', '10.60.0.0/16'));
    await setup.nodes.create({ metadata: { name: 'rbac-node' } });

    const plugin = createK8sDatastore({
      kubeconfig: api.kubeconfigPath,
      context: api.contexts['cni-plugin'],
    });
    open.push(plugin);
    const ipam = createIpamClient({ datastore: plugin });
    const { v4 } = await ipam.autoAssign({
      num4: 1,
      hostname: 'rbac-node',
      handleId: 'rbac-pod',
      intendedUse: 'Workload',
    });
    expect(v4.ips).toHaveLength(1);
    await ipam.releaseByHandle('rbac-pod');
    expect(await ipam.ipsByHandle('rbac-pod').catch(() => [])).toEqual([]);
    const forbidden = await errorOf(
      plugin.create({
        key: { kind: 'IPPool', name: 'plugin-pool' },
        value: buildPool('plugin-pool', '10.61.0.0/16'),
      }),
    );
    expect(forbidden).toMatchObject({ code: 'Unavailable' });
    expect(forbidden.message).toContain('forbids it for POST ippools/plugin-pool');
    expect(forbidden.message).toContain('system:serviceaccount:kube-system:netledger-cni-plugin');

    const ctl = createK8sDatastore({ kubeconfig: api.kubeconfigPath, context: api.contexts.ctl });
    open.push(ctl);
    for (const kind of [
      'IPAMBlock',
      'BlockAffinity',
      'IPAMHandle',
      'IPPool',
      'IPReservation',
      'Node',
    ] as const) {
      await expect(ctl.list({ kind })).resolves.toMatchObject({ items: expect.any(Array) });
    }
    await expect(ctl.get({ kind: 'Node', name: 'rbac-node' })).resolves.toMatchObject({
      key: { name: 'rbac-node' },
    });
    const nodeWrite = await errorOf(
      ctl.create({
        key: { kind: 'Node', name: 'ctl-node' },
        value: { metadata: { name: 'ctl-node' } },
      }),
    );
    expect(nodeWrite).toMatchObject({ code: 'Unavailable' });
    expect(nodeWrite.message).toContain('forbids it for POST nodes/ctl-node');
    const other = await api.kubectl(['get', 'secrets', '-A'], { as: 'ctl' });
    expect(other.status).not.toBe(0);
    expect(other.stderr).toContain('forbidden');
  });

  it("the node agent's manifest: it lists and watches what it mirrors, assigns and releases, and is refused outside", async () => {
    const api = await kube.get();
    await kubectl(['apply', '-f', join(REPO, 'apps/node-agent/deploy/rbac.yaml')]);
    const setup = createIpamClient({ datastore: await admin() });
    await setup.pools.create(buildPool('agent-pool', '10.62.0.0/16'));
    await setup.nodes.create({ metadata: { name: 'agent-node' } });

    const agent = createK8sDatastore({
      kubeconfig: api.kubeconfigPath,
      context: api.contexts['node-agent'],
    });
    open.push(agent);
    // What apps/node-agent mirrors (agentMirrorLists): a list, then a watch from its revision (a
    // refused watch still settles `established`, so the API server is asked too).
    for (const list of [
      { kind: 'IPPool' },
      { kind: 'IPReservation' },
      { kind: 'IPAMConfig' },
      { kind: 'Node' },
      { kind: 'BlockAffinity', host: 'agent-node' },
    ] as const) {
      const { revision } = await agent.list(list);
      const stream = agent.watch(list, { revision });
      try {
        await stream.established;
      } finally {
        stream.close();
      }
    }
    for (const resource of [
      'ippools.crd.projectcalico.org',
      'ipreservations.crd.projectcalico.org',
      'ipamconfigs.crd.projectcalico.org',
      'nodes',
      'blockaffinities.crd.projectcalico.org',
    ]) {
      const r = await api.kubectl(['auth', 'can-i', 'watch', resource], { as: 'node-agent' });
      expect(r.stdout.trim(), `watch ${resource}`).toBe('yes');
    }
    const ipam = createIpamClient({ datastore: agent });
    const { v4 } = await ipam.autoAssign({
      num4: 1,
      hostname: 'agent-node',
      handleId: 'agent-pod',
      intendedUse: 'Workload',
    });
    expect(v4.ips).toHaveLength(1);
    await ipam.releaseByHandle('agent-pod');
    expect(await ipam.ipsByHandle('agent-pod').catch(() => [])).toEqual([]);

    const poolWrite = await errorOf(
      agent.create({
        key: { kind: 'IPPool', name: 'agent-made-pool' },
        value: buildPool('agent-made-pool', '10.63.0.0/16'),
      }),
    );
    expect(poolWrite).toMatchObject({ code: 'Unavailable' });
    expect(poolWrite.message).toContain('system:serviceaccount:kube-system:netledger-node-agent');
    // Pods by name only (the plugin's read), never listed; no secrets.
    for (const args of [
      ['get', 'pods', '-A'],
      ['get', 'secrets', '-A'],
    ]) {
      const r = await api.kubectl(args, { as: 'node-agent' });
      expect(r.status, args.join(' ')).not.toBe(0);
      expect(r.stderr).toContain('forbidden');
    }
  });
});
