// deploy/: the generated files are what `pnpm manifests` makes (the CRD copies, one rendered
// manifest per overlay), and the rendered manifests wire what the images and the install step
// expect. Needs kubectl (kustomize is built in).
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NETLEDGER_IMAGES, imageReference } from '@netledger/images';
import { describe, expect, it } from 'vitest';
import { CRD_COPIES, wantedCrdCopies } from './crd-copies.js';
import { OVERLAYS, kubectlBinary, renderOverlay, renderedPath } from './render-overlay.js';
import type { Overlay } from './render-overlay.js';
import { configMap, find, parseObjects, podSpec } from './test-manifests.js';
import type { Container, KubeObject } from './test-manifests.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const rendered = Object.fromEntries(
  OVERLAYS.map((o) => [o, renderOverlay(ROOT, o, kubectlBinary(process.env))]),
) as Record<Overlay, string>;
const objects = (o: Overlay): KubeObject[] => parseObjects(rendered[o]);
const [NODE_IMAGE, CONTROLLERS_IMAGE] = NETLEDGER_IMAGES;

const IPAM_CRDS = [
  'blockaffinities',
  'clusterinformations',
  'ipamblocks',
  'ipamconfigs',
  'ipamhandles',
  'ippools',
  'ipreservations',
].map((c) => `${c}.crd.projectcalico.org`);

/** Every container (init containers too) of every workload. */
function containers(list: readonly KubeObject[]): Container[] {
  return list
    .filter((o) => o.kind === 'DaemonSet' || o.kind === 'Deployment')
    .flatMap((w) => [...(podSpec(w).initContainers ?? []), ...podSpec(w).containers]);
}

/** What `envFrom` gives a container: the keys of the ConfigMaps it names. */
function envFromData(list: readonly KubeObject[], c: Container): Record<string, string> {
  return Object.assign(
    {},
    ...(c.envFrom ?? []).map((e) => configMap(list, e.configMapRef!.name).data),
  ) as Record<string, string>;
}

describe('deploy/ generated files', () => {
  it(`${CRD_COPIES} holds exactly packages/datastore-k8s/crds, unchanged, and lists them`, () => {
    const wanted = wantedCrdCopies(ROOT);
    const dir = join(ROOT, CRD_COPIES);
    expect(readdirSync(dir).sort()).toEqual([...wanted.keys()].sort());
    for (const [name, content] of wanted)
      expect(readFileSync(join(dir, name), 'utf8'), `${name}: run pnpm manifests`).toBe(content);
  });

  it.each(OVERLAYS)('deploy/netledger-%s.yaml is what pnpm manifests renders', (overlay) => {
    expect(
      readFileSync(join(ROOT, renderedPath(overlay)), 'utf8'),
      `${renderedPath(overlay)} is stale: run pnpm manifests`,
    ).toBe(rendered[overlay]);
  });
});

describe.each(OVERLAYS)('the %s overlay', (overlay) => {
  it('runs the images pnpm images builds, by the names it gives them', () => {
    const list = objects(overlay);
    expect(new Set(containers(list).map((c) => c.image))).toEqual(
      new Set(NETLEDGER_IMAGES.map((i) => imageReference(ROOT, i))),
    );
    // Loaded on the nodes, never pulled.
    for (const c of containers(list)) expect(c.imagePullPolicy).toBe('IfNotPresent');
    for (const c of containers([find(list, 'DaemonSet', 'netledger-node')]))
      expect(c.image).toBe(imageReference(ROOT, NODE_IMAGE));
    for (const c of containers([find(list, 'Deployment', 'netledger-kube-controllers')]))
      expect(c.image).toBe(imageReference(ROOT, CONTROLLERS_IMAGE));
  });

  it("installs the plugin from the DaemonSet's init container into the host's CNI directories", () => {
    const list = objects(overlay);
    const spec = podSpec(find(list, 'DaemonSet', 'netledger-node'));
    const [install] = spec.initContainers ?? [];
    expect(install).toMatchObject({
      name: 'install-cni',
      command: ['/usr/local/bin/netledger-ipam', 'install-cni'],
      env: [{ name: 'NODENAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }],
    });
    const hostPathOf = (mount: string, c: Container): string | undefined => {
      const m = c.volumeMounts?.find((v) => v.mountPath === mount);
      return spec.volumes?.find((v) => v.name === m?.name)?.hostPath?.path;
    };
    // Mounted where install-cni's defaults point, from the same host paths.
    expect(hostPathOf('/opt/cni/bin', install!)).toBe('/opt/cni/bin');
    expect(hostPathOf('/etc/cni/net.d', install!)).toBe('/etc/cni/net.d');
    expect(envFromData(list, install!)).toMatchObject({
      CNI_MAIN_PLUGIN: 'ptp',
      CNI_CONF_NAME: '10-netledger.conflist',
      NETLEDGER_IPV4_POOLS: 'default-ipv4-ippool',
      DATASTORE_TYPE: overlay === 'kubernetes' ? 'kubernetes' : 'etcdv3',
    });
    // The agent: on the host's network, the socket's and the host lock's directory from the
    // host, named after its node, the same store as the conflist install-cni writes.
    const [agent] = spec.containers;
    expect(spec.hostNetwork).toBe(true);
    expect(hostPathOf('/run/netledger', agent!)).toBe('/run/netledger');
    expect(agent!.args).toEqual([
      '--nodename',
      '$(NODENAME)',
      '--socket',
      '/run/netledger/node.sock',
      '--metrics-listen',
      '127.0.0.1:9095',
    ]);
    const agentStore = envFromData(list, agent!);
    const installStore = envFromData(list, install!);
    for (const key of ['DATASTORE_TYPE', 'ETCD_ENDPOINTS'])
      expect(installStore[key]).toBe(agentStore[key]);
    // The probes on --metrics-listen's address.
    const probe = (path: string) => ({ httpGet: { host: '127.0.0.1', port: 9095, path } });
    expect(agent!.readinessProbe).toMatchObject(probe('/readyz'));
    expect(agent!.livenessProbe).toMatchObject(probe('/healthz'));
    expect(agent!.securityContext).toMatchObject({ runAsUser: 0, readOnlyRootFilesystem: true });
  });

  it('runs kube-controllers as nonroot with health probes on 9094, under a PodDisruptionBudget, its leak grace period left to the KubeControllersConfiguration', () => {
    const list = objects(overlay);
    const deployment = find(list, 'Deployment', 'netledger-kube-controllers');
    const spec = podSpec(deployment);
    expect(spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 65532 });
    expect(spec.containers[0]).toMatchObject({
      livenessProbe: { httpGet: { path: '/healthz', port: 9094 } },
      readinessProbe: { httpGet: { path: '/readyz', port: 9094 } },
    });
    // Settings a KubeControllersConfiguration carries are left to it: a flag or variable would
    // win over the resource (docs/kube-controllers.md), so the leak grace period set there,
    // as on Calico, would be ignored.
    const [controllers] = spec.containers;
    expect(controllers!.args?.join(' ') ?? '').not.toMatch(/--leak-grace-period/);
    expect(Object.keys(envFromData(list, controllers!))).not.toContain(
      'NETLEDGER_LEAK_GRACE_PERIOD',
    );
    expect(envFromData(list, spec.containers[0]!)['DATASTORE_TYPE']).toBe(
      overlay === 'kubernetes' ? 'kubernetes' : 'etcdv3',
    );
    const pdb = find(list, 'PodDisruptionBudget', 'netledger-kube-controllers');
    expect(pdb.spec).toMatchObject({
      maxUnavailable: 1,
      selector: {
        matchLabels: (deployment.spec as { selector: { matchLabels: object } }).selector
          .matchLabels,
      },
    });
  });

  it("has Calico's CRDs and the RBAC on them where the store is Kubernetes only", () => {
    const list = objects(overlay);
    const crds = list
      .filter((o) => o.kind === 'CustomResourceDefinition')
      .map((o) => o.metadata.name);
    const crdRoles = list
      .filter((o) => o.kind.startsWith('ClusterRole'))
      .map((o) => o.metadata.name)
      .filter((n) => n === 'netledger-node-agent' || n === 'netledger-kube-controllers-ipam-crds');
    if (overlay === 'kubernetes') {
      expect(crds.sort()).toEqual(
        [...IPAM_CRDS, 'kubecontrollersconfigurations.crd.projectcalico.org'].sort(),
      );
      expect(crdRoles).toHaveLength(4);
    } else {
      expect(crds).toEqual(['kubecontrollersconfigurations.crd.projectcalico.org']);
      expect(crdRoles).toEqual([]);
    }
  });
});
