import { describe, expect, it } from 'vitest';
import { clusterLayout } from './cluster-layout.js';
import {
  missingNetledgerInputs,
  netledgerInputsMessage,
  patchForTestCluster,
  testClusterHostPath,
} from './netledger-manifests.js';
import type { KubeObject } from './netledger-manifests.js';

const layout = clusterLayout('/tmp/c');

describe('missingNetledgerInputs', () => {
  it('names each missing image and the overlay, relative to the root', () => {
    const present = new Set(['/w/dist/images/netledger-node.oci.tar']);
    expect(missingNetledgerInputs('/w', (p) => present.has(p))).toEqual([
      'dist/images/netledger-kube-controllers.oci.tar',
      'deploy/overlays/kubernetes/kustomization.yaml',
    ]);
    expect(missingNetledgerInputs('/w', () => true)).toEqual([]);
  });

  it('says what is missing, what makes it, and the way round it, in one line', () => {
    const message = netledgerInputsMessage(['dist/images/netledger-node.oci.tar']);
    expect(message).toMatch(/^--cni netledger: missing dist\/images\/netledger-node\.oci\.tar\. /);
    expect(message).toContain('`pnpm images`');
    expect(message).toContain('--cni host-local');
    expect(message).not.toContain('\n');
  });
});

describe('testClusterHostPath', () => {
  it.each([
    ['/opt/cni/bin', '/tmp/c/cni/bin'],
    ['/opt/cni/bin/', '/tmp/c/cni/bin'],
    ['/etc/cni/net.d', '/tmp/c/cni/net.d'],
    ['/var/run/netledger', '/tmp/c/host/var/run/netledger'],
    ['/var/lib/cni/networks', '/tmp/c/host/var/lib/cni/networks'],
    ['/proc', '/proc'],
    ['/sys/fs/bpf', '/sys/fs/bpf'],
    ['/lib/modules', '/lib/modules'],
    ['/run/xtables.lock', '/run/xtables.lock'],
    ['/system', '/tmp/c/host/system'],
  ])('%s -> %s', (path, expected) => {
    expect(testClusterHostPath(path, layout)).toBe(expected);
  });
});

describe('patchForTestCluster', () => {
  const daemonSet: KubeObject = {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'netledger-node', namespace: 'kube-system' },
    spec: {
      template: {
        spec: {
          initContainers: [{ name: 'install-cni', image: 'netledger/netledger-node:0.1.0' }],
          containers: [
            {
              name: 'agent',
              image: 'netledger/netledger-node:0.1.0',
              imagePullPolicy: 'IfNotPresent',
              env: [
                { name: 'KUBERNETES_SERVICE_HOST', value: '10.96.0.1' },
                { name: 'NODENAME', value: 'x' },
              ],
            },
          ],
          volumes: [
            { name: 'cni-bin', hostPath: { path: '/opt/cni/bin' } },
            { name: 'cni-net', hostPath: { path: '/etc/cni/net.d' } },
            { name: 'run', hostPath: { path: '/var/run/netledger' } },
            { name: 'config', configMap: { name: 'netledger-config' } },
          ],
        },
      },
    },
  };
  const crd: KubeObject = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
  };

  it('moves host paths into DIR, runs on the host network against the API server, uses imported images', () => {
    const before = structuredClone(daemonSet);
    const [patched, untouched] = patchForTestCluster([daemonSet, crd], {
      layout,
      apiserver: { host: '127.0.0.1', port: 34567 },
    });
    expect(daemonSet).toEqual(before);
    expect(untouched).toEqual(crd);
    const pod = (patched as { spec: { template: { spec: Record<string, unknown> } } }).spec.template
      .spec;
    expect(pod).toMatchObject({ hostNetwork: true, dnsPolicy: 'ClusterFirstWithHostNet' });
    expect(pod.volumes).toEqual([
      { name: 'cni-bin', hostPath: { path: '/tmp/c/cni/bin' } },
      { name: 'cni-net', hostPath: { path: '/tmp/c/cni/net.d' } },
      { name: 'run', hostPath: { path: '/tmp/c/host/var/run/netledger' } },
      { name: 'config', configMap: { name: 'netledger-config' } },
    ]);
    const apiEnv = [
      { name: 'KUBERNETES_SERVICE_HOST', value: '127.0.0.1' },
      { name: 'KUBERNETES_SERVICE_PORT', value: '34567' },
    ];
    expect(pod.containers).toEqual([
      expect.objectContaining({
        imagePullPolicy: 'Never',
        env: [{ name: 'NODENAME', value: 'x' }, ...apiEnv],
      }),
    ]);
    expect(pod.initContainers).toEqual([
      expect.objectContaining({ imagePullPolicy: 'Never', env: apiEnv }),
    ]);
  });

  it('patches a bare Pod the same way', () => {
    const [pod] = patchForTestCluster(
      [
        {
          kind: 'Pod',
          spec: {
            containers: [{ name: 'c' }],
            volumes: [{ hostPath: { path: '/etc/cni/net.d' } }],
          },
        },
      ],
      { layout, apiserver: { host: '127.0.0.1', port: 1 } },
    );
    expect(pod).toMatchObject({
      spec: { hostNetwork: true, volumes: [{ hostPath: { path: '/tmp/c/cni/net.d' } }] },
    });
  });
});
