import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Datastore } from '@netledger/ipam-core';
import { createIpamClient } from '@netledger/ipam-core';
import { buildPool } from '@netledger/testkit';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createSharedKube } from '../test/shared-kube.js';
import type { CalicoApiGroup } from './calico-api-group.js';
import { CALICO_API_GROUPS } from './calico-api-group.js';
import { createK8sDatastore } from './create-k8s-datastore.js';
import { kubeObjectReaderOf } from './kube-object-reader.js';

// Each Calico API group on a real API server that has only that group's CRDs: the store finds the
// group as Calico does, writes the metadata Calico writes (crd.projectcalico.org/v1: the annotation
// projectcalico.org/metadata "{}" on the IPAM objects; projectcalico.org/v3: none), keeps on update
// the metadata Calico or anyone else put on an object, and the apps' RBAC manifests grant the group.

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/**
 * What Calico writes in each group (libcalico-go lib/backend/k8s/resources): the annotations on the
 * IPAM objects it creates (v1: `ConvertCalicoResourceToK8sResource` stores the metadata it built,
 * only a name and resourceVersion, both removed, as "{}"; v3: the object as built, none), and the
 * IPAM config's resource.
 */
const CALICO_WRITES: Readonly<
  Record<
    CalicoApiGroup,
    { annotations?: Record<string, string>; configKind: string; configs: string }
  >
> = {
  'crd.projectcalico.org/v1': {
    annotations: { 'projectcalico.org/metadata': '{}' },
    configKind: 'IPAMConfig',
    configs: 'ipamconfigs',
  },
  'projectcalico.org/v3': { configKind: 'IPAMConfiguration', configs: 'ipamconfigurations' },
};

interface Meta {
  name: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: unknown[];
}
interface KubeObject {
  kind: string;
  metadata: Meta;
  spec: Record<string, unknown>;
}

for (const group of CALICO_API_GROUPS) {
  const other = CALICO_API_GROUPS.find((g) => g !== group)!;
  const { annotations: calicoAnnotations, configKind, configs } = CALICO_WRITES[group];
  const groupName = group.split('/')[0]!;

  describe(group, () => {
    const kube = createSharedKube({ group });
    const open: Datastore[] = [];
    afterEach(async () => {
      await Promise.all(open.splice(0).map((d) => d.close()));
    });
    afterAll(() => kube.stop());

    async function store(options: { calicoApiGroup?: CalicoApiGroup } = {}): Promise<Datastore> {
      const ds = await kube.open(options);
      open.push(ds);
      return ds;
    }
    async function kubectl(args: string[], input?: string): Promise<string> {
      const api = await kube.get();
      const r = await api.kubectl(args, input === undefined ? {} : { input });
      if (r.status !== 0) throw new Error(`kubectl ${args.join(' ')} failed: ${r.stderr}`);
      return r.stdout;
    }
    /** Every object of a Calico resource, as the API server has it. */
    async function objects(plural: string): Promise<KubeObject[]> {
      const list = JSON.parse(await kubectl(['get', `${plural}.${groupName}`, '-o', 'json'])) as {
        items: KubeObject[];
      };
      return list.items;
    }
    async function object(plural: string, name: string): Promise<KubeObject> {
      return JSON.parse(
        await kubectl(['get', `${plural}.${groupName}`, name, '-o', 'json']),
      ) as KubeObject;
    }

    it(`finds ${group} from the API groups the server serves, as Calico's UsingV3CRDs does`, async () => {
      const ds = await store();
      await expect(kubeObjectReaderOf(ds)!.calicoApiGroup()).resolves.toBe(group);
      await expect(ds.list({ kind: 'IPAMBlock' })).resolves.toMatchObject({ items: [] });
      // The option is taken as given: here the other group's CRDs are not served.
      const forced = await store({ calicoApiGroup: other });
      await expect(kubeObjectReaderOf(forced)!.calicoApiGroup()).resolves.toBe(other);
      await expect(forced.list({ kind: 'IPAMBlock' })).rejects.toMatchObject({
        code: 'Unavailable',
        message: expect.stringContaining('the resource type is not served'),
      });
    });

    it("writes blocks, affinities, handles and the IPAM config with exactly Calico's metadata, and keeps it through updates", async () => {
      const ds = await store();
      const ipam = createIpamClient({ datastore: ds });
      await ipam.pools.create(buildPool('meta-pool', '10.70.0.0/16'));
      await ipam.nodes.create({ metadata: { name: 'meta-node' } });
      await ipam.setIpamConfig({ ...(await ipam.getIpamConfig()), ipCooldownSeconds: 30 });
      for (const handleId of ['meta-pod-1', 'meta-pod-2']) {
        await ipam.autoAssign({
          num4: 1,
          hostname: 'meta-node',
          handleId,
          intendedUse: 'Workload',
        });
      }
      await ipam.releaseByHandle('meta-pod-1'); // the block and a handle written again
      const written = [
        ...(await objects('ipamblocks')),
        ...(await objects('blockaffinities')),
        ...(await objects('ipamhandles')),
        ...(await objects(configs)),
      ];
      expect(written.map((o) => o.kind).sort()).toEqual([
        'BlockAffinity',
        'IPAMBlock',
        configKind,
        'IPAMHandle',
      ]);
      for (const o of written) {
        expect(o.metadata.annotations, `${o.kind} ${o.metadata.name}`).toEqual(calicoAnnotations);
        expect(o.metadata.finalizers).toBeUndefined();
        expect(o.metadata.ownerReferences).toBeUndefined();
        expect(Object.keys(o.metadata.labels ?? {}).sort()).toEqual(
          o.kind === 'BlockAffinity'
            ? [
                'projectcalico.org/affinity-type',
                'projectcalico.org/hostname-hash',
                'projectcalico.org/ip-version',
              ]
            : [],
        );
      }
    });

    it('an update of a block Calico created keeps its annotation and what others put on it, whoever read it', async () => {
      const name = '10-71-0-0-30';
      // The block as Calico's ipamBlockClient creates it in this group, with a label, an
      // annotation and a finalizer that someone else added.
      await kubectl(
        ['create', '-f', '-'],
        JSON.stringify({
          apiVersion: group,
          kind: 'IPAMBlock',
          metadata: {
            name,
            labels: { 'example.com/team': 'net' },
            annotations: { ...calicoAnnotations, 'example.com/note': 'kept' },
            finalizers: ['example.com/hold'],
          },
          spec: {
            cidr: '10.71.0.0/30',
            affinity: 'host:calico-node',
            allocations: [0, null, null, null],
            unallocated: [1, 2, 3],
            attributes: [{ handle_id: 'calico-pod', secondary: { node: 'calico-node' } }],
            sequenceNumber: 3,
            sequenceNumberForAllocation: { '0': 2 },
            deleted: false,
            strictAffinity: false,
          },
        }),
      );
      const theirs = {
        labels: { 'example.com/team': 'net' },
        annotations: { ...calicoAnnotations, 'example.com/note': 'kept' },
        finalizers: ['example.com/hold'],
      };
      const key = { kind: 'IPAMBlock', cidr: '10.71.0.0/30' } as const;
      try {
        // The store's own read, then its update: what to keep is known from the read.
        const reader = await store();
        const read = await reader.get(key);
        const updated = await reader.update({
          ...read,
          value: { ...read.value, sequenceNumber: read.value.sequenceNumber + 1n },
        });
        expect((await object('ipamblocks', name)).metadata).toMatchObject(theirs);
        // An update that changes nothing writes netledger's mark, which the next one drops.
        const marked = await reader.update(updated);
        expect((await object('ipamblocks', name)).metadata.annotations).toHaveProperty([
          'netledger.io/rewritten-at',
        ]);
        // Another client updates at that revision, never having read the block itself.
        const other = await store();
        const { affinity: _, ...unaffine } = marked.value;
        await other.update({ ...marked, value: unaffine });
        const after = await object('ipamblocks', name);
        expect(after.metadata).toMatchObject(theirs);
        expect(after.metadata.annotations).toEqual(theirs.annotations);
        expect(after.spec).not.toHaveProperty('affinity');
        expect(after.spec.sequenceNumber).toBe(4);
      } finally {
        await kubectl([
          'patch',
          `ipamblocks.${groupName}`,
          name,
          '--type=merge',
          '-p',
          '{"metadata":{"finalizers":null}}',
        ]);
        await kubectl(['delete', `ipamblocks.${groupName}`, name]);
      }
    });

    it("the apps' RBAC manifests grant what each app does in this group", async () => {
      const api = await kube.get();
      for (const app of ['cni-plugin', 'ctl', 'node-agent', 'kube-controllers']) {
        await kubectl(['apply', '-f', join(REPO, `apps/${app}/deploy/rbac.yaml`)]);
      }
      const admin = createIpamClient({ datastore: await store() });
      await admin.pools.create(buildPool('rbac-pool', '10.72.0.0/16'));
      await admin.nodes.create({ metadata: { name: 'rbac-node' } });
      const as = (app: 'cni-plugin' | 'ctl' | 'node-agent'): Datastore => {
        const ds = createK8sDatastore({
          kubeconfig: api.kubeconfigPath,
          context: api.contexts[app],
        });
        open.push(ds);
        return ds;
      };

      const plugin = createIpamClient({ datastore: as('cni-plugin') });
      const { v4 } = await plugin.autoAssign({
        num4: 1,
        hostname: 'rbac-node',
        handleId: 'rbac-pod',
        intendedUse: 'Workload',
      });
      expect(v4.ips).toHaveLength(1);
      await plugin.releaseByHandle('rbac-pod');

      const ctl = as('ctl');
      for (const kind of [
        'IPAMBlock',
        'BlockAffinity',
        'IPAMHandle',
        'IPAMConfig',
        'IPPool',
      ] as const) {
        await expect(ctl.list({ kind })).resolves.toMatchObject({ items: expect.any(Array) });
      }

      const agent = as('node-agent');
      for (const list of [
        { kind: 'IPPool' },
        { kind: 'IPAMConfig' },
        { kind: 'BlockAffinity', host: 'rbac-node' },
      ] as const) {
        const { revision } = await agent.list(list);
        const stream = agent.watch(list, { revision });
        await stream.established;
        stream.close();
      }
      for (const [verb, resource] of [
        ['watch', configs],
        ['watch', 'ipreservations'],
        ['update', 'ipamblocks'],
        ['delete', 'ipamhandles'],
      ]) {
        const r = await api.kubectl(['auth', 'can-i', verb!, `${resource}.${groupName}`], {
          as: 'node-agent',
        });
        expect(r.stdout.trim(), `node-agent ${verb} ${resource}`).toBe('yes');
      }
      for (const resource of [configs, 'ippools', 'ipamblocks']) {
        const r = await api.kubectl(['auth', 'can-i', 'list', `${resource}.${groupName}`], {
          as: 'kube-controllers',
        });
        expect(r.stdout.trim(), `kube-controllers list ${resource}`).toBe('yes');
      }
    });
  });
}
