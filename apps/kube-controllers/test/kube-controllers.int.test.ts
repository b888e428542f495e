// bin/netledger-kube-controllers as deployed: the built bundle, run as the app's ServiceAccount
// (deploy/rbac.yaml applied to the real kube-apiserver), the IPAM store on etcd.
import { execFileSync } from 'node:child_process';
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CoreV1Api, KubeConfig, CoordinationV1Api } from '@kubernetes/client-node';
import { createEtcdDatastore } from '@netledger/datastore-etcd';
import { createDatastoreOpener } from '@netledger/datastore-config';
import { runCtl } from '@netledger/ctl';
import { createIpamClient } from '@netledger/ipam-core';
import type { AllocationBlock, Datastore, IpamClient } from '@netledger/ipam-core';
import { createTempDir, startEtcd, startKubeApiserver } from '@netledger/testkit';
import type { EtcdFixture, KubeApiserverFixture } from '@netledger/testkit';
import { parseExposition, startReplica } from './app-harness.js';
import type { LogLine, Replica } from './app-harness.js';

const appDir = join(import.meta.dirname, '..');
const root = join(appDir, '..', '..');
const bundle = join(appDir, 'dist', 'netledger-kube-controllers.mjs');
const KCC_CRD = join(
  root,
  'packages/datastore-k8s/crds/crd.projectcalico.org_kubecontrollersconfigurations.yaml',
);

/** netledgerctl's store opener, as apps/ctl wires it (etcd over its gateway here). */
const ctlOpener = createDatastoreOpener({
  user: () => ({ uid: undefined, home: '/nonexistent-home' }),
  etcd: { transport: 'http', loadGrpc: () => Promise.reject(new Error('no gRPC')) },
});

/** `netledgerctl ipam check --show-all-ips` in-process (the CLI's own wiring), with this environment. */
async function runCheck(env: Record<string, string>): Promise<string> {
  let out = '';
  const code = await runCtl({
    argv: ['ipam', 'check', '--show-all-ips'],
    env,
    stdout: (t) => void (out += t),
    stderr: (t) => void (out += t),
    readFile: (p) => readFile(p, 'utf8'),
    writeFile: (p, t) => writeFile(p, t),
    readStdin: async () => '',
    defaultConfigFiles: [],
    stderrIsTty: false,
    openDatastore: (config, o) => ctlOpener.open(config, o),
    kubernetesReaderOf: (datastore) => ctlOpener.kubernetesReaderOf(datastore),
    repairDatastore: (config, o) => ctlOpener.repair(config, o),
  });
  expect(code, out).toBe(0);
  return out;
}

let api: KubeApiserverFixture;
let dir: { path: string; remove: () => Promise<void> };
let appKubeconfig: string;
let core: CoreV1Api;
let coordination: CoordinationV1Api;
let etcd: EtcdFixture | undefined;
let ds: Datastore | undefined;
const replicas: Replica[] = [];

beforeAll(async () => {
  execFileSync(process.execPath, ['build.mjs'], {
    cwd: appDir,
    stdio: 'inherit',
  });
  dir = await createTempDir('kube-controllers-app-');
  api = await startKubeApiserver();
  for (const file of [KCC_CRD, join(appDir, 'deploy', 'rbac.yaml')]) {
    const r = await api.kubectl(['apply', '-f', file]);
    expect(r.stderr).toBe('');
  }
  // The app's own identity: the same kubeconfig, its context current.
  appKubeconfig = join(dir.path, 'app-kubeconfig');
  await copyFile(api.kubeconfigPath, appKubeconfig);
  execFileSync(
    'kubectl',
    ['--kubeconfig', appKubeconfig, 'config', 'use-context', api.contexts['kube-controllers']],
    { stdio: 'pipe' },
  );
  const kc = new KubeConfig();
  kc.loadFromFile(api.kubeconfigPath);
  core = kc.makeApiClient(CoreV1Api);
  coordination = kc.makeApiClient(CoordinationV1Api);
}, 180_000);

afterEach(async () => {
  // SIGTERM, so a replica holding the Lease gives it up and the next test's replica need not wait
  // for it to expire; SIGKILL if it does not stop.
  for (const r of replicas.splice(0)) {
    if (r.child.exitCode !== null || r.child.signalCode !== null) continue;
    r.kill('SIGTERM');
    const timer = setTimeout(() => r.kill('SIGKILL'), 10_000);
    await r.exited;
    clearTimeout(timer);
  }
  await ds?.close();
  ds = undefined;
  await etcd?.stop();
  etcd = undefined;
});

afterAll(async () => {
  await api?.stop();
  await dir?.remove();
});

async function freshStore(): Promise<{ ipam: IpamClient; env: Record<string, string> }> {
  etcd = await startEtcd();
  ds = createEtcdDatastore({ endpoints: etcd.endpoints });
  return {
    ipam: createIpamClient({ datastore: ds }),
    env: { DATASTORE_TYPE: 'etcdv3', ETCD_ENDPOINTS: etcd.endpoints.join(',') },
  };
}

function replica(name: string, env: Record<string, string>, argv: string[]): Replica {
  const r = startReplica({
    name,
    bundle,
    env,
    argv: [
      '--kubeconfig',
      appKubeconfig,
      '--metrics-listen',
      '127.0.0.1:0',
      '--log-level',
      'debug',
      ...argv,
    ],
  });
  replicas.push(r);
  return r;
}

/** The addresses a Service's status shows. */
const ingressOf = async (namespace: string, name: string): Promise<string[]> =>
  ((await core.readNamespacedService({ name, namespace })).status?.loadBalancer?.ingress ?? []).map(
    (e) => e.ip ?? '',
  );

const address = async (r: Replica): Promise<string> =>
  String((await r.waitFor((l) => l.msg === 'serving metrics and health', 'listening')).address);

describe('deploy/rbac.yaml', () => {
  it.each([
    ['list', 'pods', '--all-namespaces', 'yes'],
    ['watch', 'nodes', '', 'yes'],
    ['get', 'kubecontrollersconfigurations.crd.projectcalico.org/default', '', 'yes'],
    ['update', 'leases/netledger-kube-controllers', '-n=kube-system', 'yes'],
    ['update', 'leases/other', '-n=kube-system', 'no'],
    ['create', 'events', '-n=kube-system', 'yes'],
    ['delete', 'pods', '--all-namespaces', 'no'],
    ['list', 'secrets', '--all-namespaces', 'no'],
    ['watch', 'services', '--all-namespaces', 'yes'],
    ['get', 'services', '-n=default', 'yes'],
    ['patch', 'services', '-n=default --subresource=status', 'yes'],
    ['update', 'services', '-n=default --subresource=status', 'yes'],
    ['patch', 'services', '-n=default', 'no'],
    ['delete', 'services', '-n=default', 'no'],
    ['create', 'events', '-n=default', 'yes'],
    ['patch', 'events', '-n=default', 'no'],
  ])('lets the app %s %s %s: %s', async (verb, resource, scope, answer) => {
    const r = await api.kubectl(
      ['auth', 'can-i', verb, resource, ...(scope ? scope.split(' ') : [])],
      { as: 'kube-controllers' },
    );
    expect(r.stdout.trim()).toBe(answer);
  });
});

describe('bin/netledger-kube-controllers', () => {
  it('refuses a bad flag with status 2 and says which', async () => {
    const r = replica('bad', {}, ['--leak-grace-period', 'soon']);
    expect(await r.exited).toBe(2);
    expect(r.stderr()).toContain('--leak-grace-period: invalid duration "soon"');
  });

  it('exits 1 when its listen address is taken', async () => {
    const { env } = await freshStore();
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const port = (taken.address() as AddressInfo).port;
    try {
      const r = replica('taken', env, ['--metrics-listen', `127.0.0.1:${port}`]);
      expect(await r.exited).toBe(1);
      expect(r.stderr()).toContain(`cannot listen on 127.0.0.1:${port}: address in use`);
    } finally {
      taken.close();
    }
  });

  it('takes its grace period from the KubeControllersConfiguration unless a flag or variable says otherwise', async () => {
    const { env } = await freshStore();
    const kcc = `apiVersion: crd.projectcalico.org/v1
kind: KubeControllersConfiguration
metadata: { name: default }
spec:
  controllers:
    node: { leakGracePeriod: 7m }
`;
    expect((await api.kubectl(['apply', '-f', '-'], { input: kcc })).status).toBe(0);
    try {
      const fromResource = replica('kcc', env, []);
      const start = await fromResource.waitFor(
        (l) => l.msg === 'starting netledger-kube-controllers',
        'start',
      );
      expect(start).toMatchObject({ leakGracePeriodMs: 420_000, leakGracePeriodFrom: 'resource' });
      const fromEnv = replica('kcc-env', { ...env, NETLEDGER_LEAK_GRACE_PERIOD: '2m' }, []);
      const start2 = await fromEnv.waitFor(
        (l) => l.msg === 'starting netledger-kube-controllers',
        'start',
      );
      expect(start2).toMatchObject({ leakGracePeriodMs: 120_000, leakGracePeriodFrom: 'env' });
      const bad = `apiVersion: crd.projectcalico.org/v1
kind: KubeControllersConfiguration
metadata: { name: default }
spec:
  controllers:
    node: { leakGracePeriod: sometime }
`;
      expect((await api.kubectl(['apply', '-f', '-'], { input: bad })).status).toBe(0);
      const refused = replica('kcc-bad', env, []);
      expect(await refused.exited).toBe(2);
      expect(refused.stderr()).toContain(
        'KubeControllersConfiguration default: spec.controllers.node.leakGracePeriod: invalid duration "sometime"',
      );
    } finally {
      await api.kubectl([
        'delete',
        'kubecontrollersconfigurations.crd.projectcalico.org',
        'default',
      ]);
    }
  });

  it('assigns LoadBalancer addresses, and netledgerctl ipam check counts them once the KubeControllersConfiguration configures the controller', async () => {
    const { ipam, env } = await freshStore();
    await ipam.pools.create({
      metadata: { name: 'lb' },
      spec: { cidr: '10.92.0.0/24', allowedUses: ['LoadBalancer'] },
    });
    const ns = 'lb-check';
    await core.createNamespace({ body: { metadata: { name: ns } } });
    for (const name of ['web', 'db'])
      await core.createNamespacedService({
        namespace: ns,
        body: { metadata: { name }, spec: { type: 'LoadBalancer', ports: [{ port: 80 }] } },
      });
    const kcc = `apiVersion: crd.projectcalico.org/v1
kind: KubeControllersConfiguration
metadata: { name: default }
spec:
  controllers:
    node: { leakGracePeriod: 15m }
    loadBalancer: { assignIPs: AllServices }
`;
    expect((await api.kubectl(['apply', '-f', '-'], { input: kcc })).status).toBe(0);
    try {
      const r = replica('lb', env, []);
      const start = await r.waitFor(
        (l) => l.msg === 'starting netledger-kube-controllers',
        'start',
      );
      expect(start).toMatchObject({ loadBalancer: 'on', loadBalancerFrom: 'resource' });
      for (const name of ['web', 'db'])
        await r.waitFor(
          (l) => l.msg === 'set LoadBalancer status' && l.service === `${ns}/${name}`,
          `${name}'s status`,
        );
      const check = () => runCheck({ ...env, KUBECONFIG: api.kubeconfigPath });
      const configured = await check();
      expect(configured).toContain('Found 2 service load balancer(s).\n');
      expect(configured.match(/ belongs to (web|db)\n/g)).toHaveLength(2);
      expect(configured).not.toContain('No configuration for LoadBalancer kubecontroller found');
      expect(configured).toContain(
        'Found 0 IPs that are allocated in IPAM but not actually in use.',
      );
      expect(configured).toContain('Check complete; found 0 problems.');
      // Without the controller's configuration calicoctl skips Services: their addresses have no user.
      expect(
        (
          await api.kubectl([
            'delete',
            'kubecontrollersconfigurations.crd.projectcalico.org',
            'default',
          ])
        ).status,
      ).toBe(0);
      const unconfigured = await check();
      expect(unconfigured).toContain(
        'No configuration for LoadBalancer kubecontroller found, skipping service check',
      );
      expect(unconfigured).toContain(
        'Found 2 IPs that are allocated in IPAM but not actually in use.',
      );
    } finally {
      await api.kubectl([
        'delete',
        '--ignore-not-found',
        'kubecontrollersconfigurations.crd.projectcalico.org',
        'default',
      ]);
      await core.deleteCollectionNamespacedService({ namespace: ns });
    }
  });

  it('runs the LoadBalancer controller by default once a LoadBalancer pool exists, and serves its pool metrics', async () => {
    const { ipam, env } = await freshStore();
    const ns = 'lb-default';
    await core.createNamespace({ body: { metadata: { name: ns } } });
    try {
      await core.createNamespacedService({
        namespace: ns,
        body: {
          metadata: { name: 'early' },
          spec: { type: 'LoadBalancer', ports: [{ port: 80 }] },
        },
      });
      // No flag, no variable, no KubeControllersConfiguration: the default.
      const r = replica('lb-default', env, []);
      expect(
        await r.waitFor((l) => l.msg === 'starting netledger-kube-controllers', 'start'),
      ).toMatchObject({ loadBalancer: 'auto', loadBalancerFrom: 'default' });
      await r.waitFor(
        (l) => l.msg === 'LoadBalancer controller idle: no IP pool allows LoadBalancer use',
        'idle without a LoadBalancer pool',
      );
      const base = `http://${await address(r)}`;
      const ready = await fetch(`${base}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.text()).toContain('ok load-balancer: idle: no LoadBalancer IP pool\n');
      expect(await ingressOf(ns, 'early')).toEqual([]);
      await ipam.pools.create({ metadata: { name: 'pods' }, spec: { cidr: '10.93.0.0/24' } });
      await ipam.pools.create({
        metadata: { name: 'lb-late' },
        spec: { cidr: '10.94.0.0/24', blockSize: 28, allowedUses: ['LoadBalancer'] },
      });
      await r.waitFor(
        (l) => l.msg === 'LoadBalancer controller active: watching Services',
        'active',
      );
      const set = await r.waitFor(
        (l) => l.msg === 'set LoadBalancer status' && l.service === `${ns}/early`,
        "early's status",
      );
      expect(set.ingress).toMatch(/^10\.94\.0\./);
      expect(await ingressOf(ns, 'early')).toEqual([set.ingress]);
      // The pool figures come from the controller's store view, which its watch may bring a
      // moment after the status is written: scrape now and after each change of that view.
      const want = {
        'ipam_loadbalancer_ippool_size{ippool="lb-late"}': 256,
        'ipam_loadbalancer_allocations_in_use{ippool="lb-late"}': 1,
        'ipam_loadbalancer_blocks{ippool="lb-late"}': 1,
        'ipam_loadbalancer_ippool_free_blocks{ippool="lb-late"}': 15,
      };
      const metrics = await new Promise<Map<string, number>>((resolve, reject) => {
        let last = new Map<string, number>();
        const fail = (e: unknown): void => {
          clearTimeout(timer);
          r.events.off('line', onLine);
          reject(e instanceof Error ? e : new Error(String(e)));
        };
        const timer = setTimeout(
          () => fail(`LoadBalancer metrics never matched: ${[...last].join('; ')}`),
          60_000,
        );
        const check = (): void =>
          void fetch(`${base}/metrics`)
            .then((res) => res.text())
            .then((text) => {
              last = parseExposition(text);
              if (!Object.entries(want).every(([k, v]) => last.get(k) === v)) return;
              clearTimeout(timer);
              r.events.off('line', onLine);
              resolve(last);
            }, fail);
        const onLine = (l: LogLine): void => {
          if (l.msg === 'LoadBalancer store view changed') check();
        };
        r.events.on('line', onLine);
        check();
      });
      // The workload pool has no LoadBalancer series.
      expect(
        [...metrics.keys()].filter((k) => k.startsWith('ipam_loadbalancer_') && k.includes('pods')),
      ).toEqual([]);
    } finally {
      await core.deleteCollectionNamespacedService({ namespace: ns });
    }
  });

  it('serves metrics equal to the allocation state computed independently from the store', async () => {
    const { ipam, env } = await freshStore();
    await ipam.pools.create({
      metadata: { name: 'pool-a' },
      spec: { cidr: '10.70.0.0/24', blockSize: 29 },
    });
    await ipam.pools.create({
      metadata: { name: 'pool-b' },
      spec: { cidr: '10.71.0.0/26', blockSize: 30 },
    });
    await ipam.reservations.create({
      metadata: { name: 'r' },
      spec: { reservedCIDRs: ['10.70.0.250/31'] },
    });
    await ipam.setIpamConfig({ ...(await ipam.getIpamConfig()), ipCooldownSeconds: 600 });
    const ns = 'metrics';
    await core.createNamespace({ body: { metadata: { name: ns } } });
    const nodes = ['m-n1', 'm-n2'];
    for (const n of nodes) {
      await core.createNode({ body: { metadata: { name: n } } });
      await ipam.nodes.create({ metadata: { name: n } });
    }
    const assign = async (
      pod: string,
      node: string,
      pool: string,
      extra: Record<string, string> = {},
    ) => {
      const { v4 } = await ipam.autoAssign({
        num4: 1,
        hostname: node,
        handleId: `k8s-pod-network.${pod}`,
        ipv4Pools: [pool],
        attrs: { namespace: ns, pod, node, ...extra },
        intendedUse: 'Workload',
      });
      const ip = v4.ips[0]!.split('/')[0]!;
      await core.createNamespacedPod({
        namespace: ns,
        body: {
          metadata: { name: pod },
          spec: { nodeName: node, containers: [{ name: 'c', image: 'x' }] },
        },
      });
      return ip;
    };
    const a1 = await assign('a1', 'm-n1', '10.70.0.0/24');
    await assign('a2', 'm-n1', '10.70.0.0/24');
    await assign('b1', 'm-n2', '10.71.0.0/26');
    await assign('gone', 'm-n1', '10.70.0.0/24');
    await ipam.releaseByHandle('k8s-pod-network.gone'); // cooling down: not in use
    // Borrowed: node 2 takes an address of node 1's block.
    const borrowedIp = a1.replace(/\.(\d+)$/, (_m, d: string) => `.${Number(d) + 5}`);
    await ipam.assignIp({
      ip: borrowedIp,
      hostname: 'm-n2',
      handleId: 'k8s-pod-network.borrow',
      attrs: { namespace: ns, pod: 'borrow', node: 'm-n2' },
    });
    await core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name: 'borrow' },
        spec: { nodeName: 'm-n2', containers: [{ name: 'c', image: 'x' }] },
      },
    });
    await ipam.autoAssign({
      num4: 1,
      hostname: 'm-n1',
      handleId: 'vxlan-tunnel-addr-m-n1',
      ipv4Pools: ['10.70.0.0/24'],
      attrs: { node: 'm-n1', type: 'vxlanTunnelAddress' },
      intendedUse: 'Tunnel',
    });

    const expected = await expectedMetrics(ipam, ds!);
    const r = replica('metrics', env, []);
    const base = `http://${await address(r)}`;
    // After every pass, scrape; done when the gauges equal the independent computation.
    let last = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`metrics never matched:\n${last}`)), 60_000);
      const check = async (l: LogLine): Promise<void> => {
        if (l.msg !== 'GC pass done') return;
        const got = pick(parseExposition(await (await fetch(`${base}/metrics`)).text()));
        last = diff(got, expected);
        if (last === '') {
          clearTimeout(timer);
          r.events.off('line', onLine);
          resolve();
        }
      };
      const onLine = (l: LogLine) => void check(l).catch(reject);
      r.events.on('line', onLine);
    });
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
  });

  it('runs on the Kubernetes store as its own ServiceAccount (deploy/rbac.yaml is enough)', async () => {
    expect(
      (await api.kubectl(['apply', '-f', join(root, 'packages/datastore-k8s/crds')])).status,
    ).toBe(0);
    const admin = await createDatastoreOpener({
      user: () => ({ uid: undefined, home: dir.path }),
      etcd: { transport: 'http', loadGrpc: () => Promise.reject(new Error('no gRPC')) },
    }).open({ type: 'kubernetes', kubeconfig: api.kubeconfigPath });
    try {
      const ipam = createIpamClient({ datastore: admin });
      await ipam.pools.create({
        metadata: { name: 'k8s-pool' },
        spec: { cidr: '10.90.0.0/24', blockSize: 29 },
      });
      await core.createNode({ body: { metadata: { name: 'kds-node' } } });
      const { v4 } = await ipam.autoAssign({
        num4: 1,
        hostname: 'kds-node',
        handleId: 'k8s-pod-network.kds-gone',
        attrs: { namespace: 'default', pod: 'kds-gone', node: 'kds-node' },
        intendedUse: 'Workload',
      });
      const ip = v4.ips[0]!.split('/')[0]!;
      // And a LoadBalancer Service: its address from a LoadBalancer pool, its status, its Event.
      await ipam.pools.create({
        metadata: { name: 'k8s-lb' },
        spec: { cidr: '10.91.0.0/24', allowedUses: ['LoadBalancer'] },
      });
      await core.createNamespace({ body: { metadata: { name: 'kds-lb' } } });
      await core.createNamespacedService({
        namespace: 'kds-lb',
        body: { metadata: { name: 'web' }, spec: { type: 'LoadBalancer', ports: [{ port: 80 }] } },
      });
      const r = replica('kds', { DATASTORE_TYPE: 'kubernetes' }, ['--leak-grace-period', '1s']);
      const released = await r.waitFor((l) => l.msg === 'released leaked address', 'a release');
      expect(released).toMatchObject({ ip, handle: 'k8s-pod-network.kds-gone', node: 'kds-node' });
      await expect(ipam.getAssignmentAttributes(ip)).rejects.toMatchObject({
        code: 'DoesNotExist',
      });
      const set = await r.waitFor((l) => l.msg === 'set LoadBalancer status', 'the LB status');
      expect(set).toMatchObject({
        service: 'kds-lb/web',
        ingress: expect.stringMatching(/^10\.91\.0\./),
      });
      const svc = await core.readNamespacedService({ name: 'web', namespace: 'kds-lb' });
      expect(svc.status?.loadBalancer?.ingress?.map((e) => e.ip)).toEqual([set.ingress]);
      expect(
        (await ipam.getAssignmentAttributes(String(set.ingress))).activeOwnerAttrs,
      ).toMatchObject({
        service: 'web',
        namespace: 'kds-lb',
      });
      // netledgerctl on the Kubernetes store reads the Services over the store's own connection.
      const kcc = `apiVersion: crd.projectcalico.org/v1
kind: KubeControllersConfiguration
metadata: { name: default }
spec: { controllers: { loadBalancer: {} } }
`;
      expect((await api.kubectl(['apply', '-f', '-'], { input: kcc })).status).toBe(0);
      const checked = await runCheck({
        DATASTORE_TYPE: 'kubernetes',
        KUBECONFIG: api.kubeconfigPath,
      });
      expect(checked).toContain('Found 1 service load balancer(s).\n');
      expect(checked).toContain(`  ${String(set.ingress)} belongs to web\n`);
      expect(checked).toContain('Found 0 IPs that are allocated in IPAM but not actually in use.');
      expect(r.lines.filter((l) => l.level === 'warning' || l.level === 'error')).toEqual([]);
    } finally {
      await api.kubectl([
        'delete',
        '--ignore-not-found',
        'kubecontrollersconfigurations.crd.projectcalico.org',
        'default',
      ]);
      await core.deleteCollectionNamespacedService({ namespace: 'kds-lb' }).catch(() => undefined);
      await admin.close();
    }
  });

  // Two processes start, one waits out the other's lease: on a loaded 2-core machine the start-ups
  // alone can take most of the default 30 s.
  it('runs two replicas that never release concurrently: the leader is killed mid-pass, the other finishes', async () => {
    const { ipam, env } = await freshStore();
    await ipam.pools.create({
      metadata: { name: 'pool' },
      spec: { cidr: '10.80.0.0/24', blockSize: 29 },
    });
    await core.createNode({ body: { metadata: { name: 'ha-node' } } });
    await ipam.nodes.create({ metadata: { name: 'ha-node' } });
    const argv = [
      '--leak-grace-period',
      '1s',
      '--max-releases-per-pass',
      '3',
      '--lease-duration',
      '3s',
      '--renew-deadline',
      '2s',
      '--retry-period',
      '250ms',
    ];
    const a = replica('A', env, argv);
    await a.waitFor((l) => l.msg === 'became the leader', 'A leading');
    const b = replica('B', env, argv);
    await b.waitFor((l) => l.msg === 'caches synced: GC running', 'B synced');
    expect(b.lines.some((l) => l.msg === 'became the leader')).toBe(false);
    // 12 addresses of pods that no longer exist (deleted behind the CNI plugin's back).
    const leaked: string[] = [];
    for (let i = 0; i < 12; i++) {
      const { v4 } = await ipam.autoAssign({
        num4: 1,
        hostname: 'ha-node',
        handleId: `k8s-pod-network.ha-${i}`,
        attrs: { namespace: 'default', pod: `ha-${i}`, node: 'ha-node' },
        intendedUse: 'Workload',
      });
      leaked.push(v4.ips[0]!.split('/')[0]!);
    }
    // The follower judges too and serves its metrics, but writes nothing.
    await b.waitFor(
      (l) => l.msg === 'GC pass done' && Number(l.candidates) + Number(l.confirmed) > 0,
      'B judging',
    );
    const bBase = `http://${await address(b)}`;
    const bMetrics = parseExposition(await (await fetch(`${bBase}/metrics`)).text());
    expect(bMetrics.get('ipam_gc_leader')).toBe(0);
    expect(
      bMetrics.get('ipam_allocations_gc_candidates{ippool="pool",node="ha-node"}'),
    ).toBeGreaterThan(0);
    expect((await fetch(`${bBase}/readyz`)).status).toBe(200);
    await a.waitFor((l) => l.msg === 'released leaked address', 'A releasing');
    expect(b.lines.some((l) => l.msg === 'released leaked address')).toBe(false);
    a.kill('SIGKILL');
    expect(await a.exited).toBe('SIGKILL');
    const killedAt = Date.now();
    await b.waitFor((l) => l.msg === 'became the leader', 'B leading');
    const releasedBy = (r: Replica) =>
      r.lines.filter((l) => l.msg === 'released leaked address').map((l) => String(l.ip));
    // B finishes: every leaked address free in the store (checked after each of B's passes).
    // A may have released a whole batch and been killed before logging all of it: the store, not
    // A's log, says what is free.
    const allFree = async (): Promise<boolean> => {
      for (const ip of leaked)
        if (
          await ipam.getAssignmentAttributes(ip).then(
            () => true,
            () => false,
          )
        )
          return false;
      return true;
    };
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('B did not finish')), 40_000);
      const onLine = (l: LogLine): void => {
        if (l.msg !== 'GC pass done') return;
        void allFree().then((done) => {
          if (!done) return;
          clearTimeout(timer);
          b.events.off('line', onLine);
          resolve();
        }, reject);
      };
      b.events.on('line', onLine);
    });
    // Nothing released twice: no address in both logs, nor twice in one.
    const all = [...releasedBy(a), ...releasedBy(b)];
    expect(new Set(all).size).toBe(all.length);
    expect(all.every((ip) => leaked.includes(ip))).toBe(true);
    expect(releasedBy(a).length).toBeGreaterThan(0);
    expect(releasedBy(b).length).toBeGreaterThan(0);
    // B released nothing before A was gone and B held the lease.
    const bLeading = Date.parse(String(b.lines.find((l) => l.msg === 'became the leader')!.ts));
    const bFirst = Date.parse(String(b.lines.find((l) => l.msg === 'released leaked address')!.ts));
    const aLast = Math.max(
      ...a.lines.filter((l) => l.msg === 'released leaked address').map((l) => Date.parse(l.ts)),
    );
    expect(bFirst).toBeGreaterThanOrEqual(bLeading);
    expect(bLeading).toBeGreaterThanOrEqual(aLast);
    expect(bLeading).toBeGreaterThanOrEqual(killedAt - 1000);
    for (const ip of leaked)
      await expect(ipam.getAssignmentAttributes(ip)).rejects.toMatchObject({
        code: 'DoesNotExist',
      });
    const lease = await coordination.readNamespacedLease({
      name: 'netledger-kube-controllers',
      namespace: 'kube-system',
    });
    expect(lease.spec?.holderIdentity).toBe(
      String(b.lines.find((l) => l.msg === 'became the leader')!.identity),
    );
    expect(lease.spec?.leaseTransitions).toBeGreaterThanOrEqual(1);
    // SIGTERM: B stops cleanly and gives the lease up.
    b.kill('SIGTERM');
    expect(await b.exited).toBe(0); // bounded: a stop that hangs exits 1 after 15 s
    const after = await coordination.readNamespacedLease({
      name: 'netledger-kube-controllers',
      namespace: 'kube-system',
    });
    expect(after.spec?.holderIdentity ?? '').toBe('');
  }, 60_000);
});

/** The families compared, as `name{labels}` -> value. */
const FAMILIES = [
  'ipam_allocations_in_use',
  'ipam_allocations_borrowed',
  'ipam_blocks',
  'ipam_ippool_size',
  'ipam_ippool_reserved',
  'ipam_ippool_available',
  'ipam_allocations_per_node',
  'ipam_allocations_borrowed_per_node',
  'ipam_blocks_per_node',
];
function pick(all: Map<string, number>): Map<string, number> {
  return new Map([...all].filter(([k]) => FAMILIES.includes(k.split('{')[0]!)));
}
function diff(got: Map<string, number>, want: Map<string, number>): string {
  const keys = [...new Set([...got.keys(), ...want.keys()])].sort();
  return keys
    .filter((k) => got.get(k) !== want.get(k))
    .map((k) => `${k}: got ${got.get(k)}, want ${want.get(k)}`)
    .join('\n');
}

/**
 * The metrics computed straight from the stored blocks (ordinals and attribute records, not the
 * controller's code), pool sizes from their CIDRs, available and reserved from ipam-core's
 * utilization (what `netledgerctl ipam show` prints).
 */
async function expectedMetrics(ipam: IpamClient, store: Datastore): Promise<Map<string, number>> {
  const m = new Map<string, number>();
  const add = (k: string, by: number) => m.set(k, (m.get(k) ?? 0) + by);
  const pools = (await ipam.pools.list()).map((p) => ({
    name: p.metadata.name,
    cidr: p.spec.cidr,
  }));
  const nodes = (await store.list({ kind: 'Node' })).items.map((kv) => kv.key.name);
  const inPool = (cidr: string) => pools.find((p) => sameNet(p.cidr, cidr))!.name;
  for (const p of pools) {
    for (const n of nodes)
      for (const f of ['ipam_allocations_in_use', 'ipam_allocations_borrowed'])
        m.set(`${f}{ippool="${p.name}",node="${n}"}`, 0);
    m.set(`ipam_ippool_size{ippool="${p.name}"}`, 2 ** (32 - Number(p.cidr.split('/')[1])));
  }
  for (const kv of (await store.list({ kind: 'IPAMBlock' })).items) {
    const b: AllocationBlock = kv.value;
    const pool = inPool(b.cidr);
    const host = b.affinity?.startsWith('host:') ? b.affinity.slice(5) : undefined;
    add(`ipam_blocks{ippool="${pool}",node="${host ?? 'no_affinity'}"}`, 1);
    add(`ipam_blocks_per_node{node="${host ?? 'no_affinity'}"}`, 1);
    for (const idx of b.allocations) {
      if (idx === null) continue;
      const attr = b.attributes[idx]!;
      if (attr.releasedAt !== undefined || attr.handleId === undefined) continue;
      const node = attr.activeOwnerAttrs?.node;
      add(`ipam_allocations_in_use{ippool="${pool}",node="${node ?? 'unknown_node'}"}`, 1);
      if (node !== undefined) {
        add(`ipam_allocations_per_node{node="${node}"}`, 1);
        if (node !== host) {
          add(`ipam_allocations_borrowed{ippool="${pool}",node="${node}"}`, 1);
          add(`ipam_allocations_borrowed_per_node{node="${node}"}`, 1);
        }
      }
    }
  }
  const reservations = await ipam.reservations.list();
  for (const u of await ipam.getUtilization()) {
    if (!pools.some((p) => p.name === u.name)) continue;
    m.set(`ipam_ippool_available{ippool="${u.name}"}`, Number(u.available));
    m.set(
      `ipam_ippool_reserved{ippool="${u.name}"}`,
      Number(ipam.numReservedIpsInCidr(u.cidr, reservations)),
    );
  }
  return m;
}

function sameNet(pool: string, block: string): boolean {
  const [p, plen] = pool.split('/');
  const toInt = (ip: string) => ip.split('.').reduce((a, o) => a * 256 + Number(o), 0);
  const mask = 2 ** (32 - Number(plen));
  return Math.floor(toInt(block.split('/')[0]!) / mask) === Math.floor(toInt(p!) / mask);
}
