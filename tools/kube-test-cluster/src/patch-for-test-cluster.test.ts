import { describe, expect, it } from 'vitest';
import { clusterLayout } from './cluster-layout.js';
import {
  containerPorts,
  patchForTestCluster,
  testClusterHostPath,
} from './patch-for-test-cluster.js';
import type { KubeObject } from './patch-for-test-cluster.js';

const layout = clusterLayout('/tmp/c');
const options = {
  layout,
  apiserver: { host: '127.0.0.1', port: 34567 },
  hostPorts: new Map([[9094, 41000]]),
};

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

const status = (socket: string) => ({
  exec: { command: ['/usr/local/bin/netledger-node', 'status', '--socket', socket] },
});

/** The agent's DaemonSet as deploy/ has it, in short. */
const daemonSet: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: { name: 'netledger-node', namespace: 'kube-system' },
  spec: {
    template: {
      spec: {
        initContainers: [
          {
            name: 'install-cni',
            image: 'netledger/netledger-node:0.1.0',
            volumeMounts: [{ name: 'cni-net', mountPath: '/etc/cni/net.d' }],
          },
        ],
        containers: [
          {
            name: 'agent',
            image: 'netledger/netledger-node:0.1.0',
            imagePullPolicy: 'IfNotPresent',
            args: ['--nodename', '$(NODENAME)', '--socket', '/run/netledger/node.sock'],
            env: [
              { name: 'KUBERNETES_SERVICE_HOST', value: '10.96.0.1' },
              { name: 'NODENAME', value: 'x' },
            ],
            volumeMounts: [{ name: 'run', mountPath: '/run/netledger' }],
            readinessProbe: status('/run/netledger/node.sock'),
          },
        ],
        volumes: [
          { name: 'cni-bin', hostPath: { path: '/opt/cni/bin' } },
          { name: 'cni-net', hostPath: { path: '/etc/cni/net.d' } },
          { name: 'run', hostPath: { path: '/run/netledger' } },
          { name: 'config', configMap: { name: 'netledger-config' } },
        ],
      },
    },
  },
};

/** kube-controllers' Deployment, in short: two replicas, metrics and probes on 9094. */
const deployment: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'netledger-kube-controllers', namespace: 'kube-system' },
  spec: {
    replicas: 2,
    template: {
      spec: {
        containers: [
          {
            name: 'c',
            args: ['--metrics-listen=0.0.0.0:9094', '--log-level=info'],
            ports: [{ name: 'metrics', containerPort: 9094 }],
            livenessProbe: { httpGet: { path: '/healthz', port: 9094 } },
            readinessProbe: { httpGet: { path: '/readyz', port: 9094 } },
          },
        ],
      },
    },
  },
};

const podOf = (o: KubeObject) =>
  (o as { spec: { template: { spec: Record<string, unknown> } } }).spec.template.spec;

describe('patchForTestCluster', () => {
  it('moves host paths into DIR, runs on the host network against the API server, uses imported images', () => {
    const crd: KubeObject = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
    };
    const before = structuredClone(daemonSet);
    const [patched, untouched] = patchForTestCluster([daemonSet, crd], options);
    expect(daemonSet).toEqual(before);
    expect(untouched).toEqual(crd);
    const pod = podOf(patched!);
    expect(pod).toMatchObject({ hostNetwork: true, dnsPolicy: 'ClusterFirstWithHostNet' });
    expect(pod.volumes).toEqual([
      { name: 'cni-bin', hostPath: { path: '/tmp/c/cni/bin' } },
      { name: 'cni-net', hostPath: { path: '/tmp/c/cni/net.d' } },
      { name: 'run', hostPath: { path: '/tmp/c/host/run/netledger' } },
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
      expect.objectContaining({
        imagePullPolicy: 'Never',
        env: apiEnv,
        // The CNI dirs are containerd's in DIR: mounted where the manifest says, nothing added.
        volumeMounts: [{ name: 'cni-net', mountPath: '/etc/cni/net.d' }],
      }),
    ]);
  });

  it("names the agent's socket as the host sees it: the moved directory mounted there too", () => {
    const [patched] = patchForTestCluster([daemonSet], options);
    const [agent] = podOf(patched!).containers as Record<string, unknown>[];
    const socket = '/tmp/c/host/run/netledger/node.sock';
    expect(agent).toMatchObject({
      args: ['--nodename', '$(NODENAME)', '--socket', socket],
      // The host lock's default, /run/netledger/ipam.lock, is the same host file.
      volumeMounts: [
        { name: 'run', mountPath: '/run/netledger' },
        { name: 'run', mountPath: '/tmp/c/host/run/netledger' },
      ],
      readinessProbe: status(socket),
    });
  });

  it("gives install-cni's settings the agent's socket as the host sees it, unless they name one", () => {
    const settings = (data: Record<string, string>): KubeObject => ({
      kind: 'ConfigMap',
      metadata: { name: 'netledger-cni-config-abc' },
      data,
    });
    const other = { kind: 'ConfigMap', metadata: { name: 'x' }, data: { A: 'b' } };
    const [ours, given, untouched] = patchForTestCluster(
      [
        settings({ CNI_CONF_NAME: '10-netledger.conflist' }),
        settings({ CNI_CONF_NAME: '10-netledger.conflist', NETLEDGER_AGENT_SOCKET: '/s.sock' }),
        other,
      ],
      options,
    );
    expect(ours!.data).toEqual({
      CNI_CONF_NAME: '10-netledger.conflist',
      NETLEDGER_AGENT_SOCKET: '/tmp/c/host/run/netledger/node.sock',
    });
    expect(given!.data).toMatchObject({ NETLEDGER_AGENT_SOCKET: '/s.sock' });
    expect(untouched).toEqual(other);
  });

  it('runs one replica with its ports on free loopback ports: the listen flag, the ports and the probes', () => {
    expect(containerPorts([daemonSet, deployment])).toEqual([9094]);
    const [patched] = patchForTestCluster([deployment], options);
    expect((patched!.spec as { replicas: number }).replicas).toBe(1);
    expect(podOf(patched!).containers).toEqual([
      expect.objectContaining({
        args: ['--metrics-listen=127.0.0.1:41000', '--log-level=info'],
        ports: [{ name: 'metrics', containerPort: 41000 }],
        livenessProbe: { httpGet: { path: '/healthz', port: 41000 } },
        readinessProbe: { httpGet: { path: '/readyz', port: 41000 } },
      }),
    ]);
  });

  it('patches a bare Pod the same way', () => {
    const [pod] = patchForTestCluster(
      [
        {
          kind: 'Pod',
          spec: {
            containers: [{ name: 'c' }],
            volumes: [{ name: 'v', hostPath: { path: '/etc/cni/net.d' } }],
          },
        },
      ],
      options,
    );
    expect(pod).toMatchObject({
      spec: { hostNetwork: true, volumes: [{ hostPath: { path: '/tmp/c/cni/net.d' } }] },
    });
  });
});
