// netledger-kube-controllers' memory at 300 nodes / 10,200 pods, measured on the real process:
// the built bundle against the real kube-apiserver (300 Node and 10,200 Pod objects) and an etcd
// store holding the matching 10,200 allocations. `pnpm bench --filter=@netledger/kube-controllers-app`.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { createEtcdDatastore } from '@netledger/datastore-etcd';
import type { AllocationAttribute, AllocationBlock, Datastore } from '@netledger/ipam-core';
import { startEtcd } from '@netledger/testkit';
import { startReplica } from '../test/app-harness.js';

const NODES = 300;
const PER_NODE = 34;
const appDir = process.cwd();
const root = join(appDir, '..', '..');
const mib = (n: number): number => n / 1024 / 1024;
const rssKb = (pid: number): number =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
const ipOf = (n: number): string => [24, 16, 8, 0].map((s) => (n >>> s) & 255).join('.');

/** Starts tools/kube-test-apiserver from source; resolves with its URL and a stop function. */
async function startApiserver(
  dir: string,
): Promise<{ kubeconfig: string; stop: () => Promise<void> }> {
  const kubeconfig = join(dir, 'kubeconfig');
  const child = spawn(
    process.execPath,
    [
      join(root, 'scripts/run-ts.mjs'),
      join(root, 'tools/kube-test-apiserver/src/main.ts'),
      '--listen',
      '127.0.0.1:0',
      '--kubeconfig-out',
      kubeconfig,
      '--exit-on-stdin-close',
      '--no-build',
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('\n')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`kube-test-apiserver exited ${code}`)));
  });
  return {
    kubeconfig,
    stop: () =>
      new Promise((resolve) => (child.once('exit', () => resolve()), child.kill('SIGTERM'))),
  };
}

async function populateStore(ds: Datastore): Promise<void> {
  await ds.create({
    key: { kind: 'IPPool', name: 'bench' },
    value: {
      metadata: { name: 'bench', uid: 'u', creationTimestamp: '2026-01-01T00:00:00Z' },
      spec: {
        cidr: '10.0.0.0/12',
        blockSize: 26,
        ipipMode: 'Never',
        vxlanMode: 'Never',
        nodeSelector: 'all()',
        allowedUses: ['Workload', 'Tunnel'],
      },
    },
  });
  const seq = 1767225600000000001n;
  let next = 10 << 24;
  const writes: Promise<unknown>[] = [];
  for (let n = 0; n < NODES; n++) {
    const node = `node-${n}`;
    const cidr = `${ipOf(next)}/26`;
    const allocations: (number | null)[] = Array.from({ length: 64 }, () => null);
    const attributes: AllocationAttribute[] = [];
    const seqs: Record<string, bigint> = {};
    for (let o = 0; o < PER_NODE; o++) {
      const pod = `p-${n}-${o}`;
      allocations[o] =
        attributes.push({
          handleId: `k8s-pod-network.${pod}`,
          activeOwnerAttrs: { namespace: 'bench', pod, node },
        }) - 1;
      seqs[String(o)] = seq;
      writes.push(
        ds.create({
          key: { kind: 'IPAMHandle', handleId: `k8s-pod-network.${pod}` },
          value: { handleId: `k8s-pod-network.${pod}`, block: { [cidr]: 1 }, deleted: false },
        }),
      );
    }
    const block: AllocationBlock = {
      cidr,
      affinity: `host:${node}`,
      allocations,
      unallocated: allocations.flatMap((a, i) => (a === null ? [i] : [])),
      attributes,
      sequenceNumber: seq,
      sequenceNumberForAllocation: seqs,
      deleted: false,
    };
    writes.push(
      ds.create({ key: { kind: 'Node', name: node }, value: { metadata: { name: node } } }),
    );
    writes.push(ds.create({ key: { kind: 'IPAMBlock', cidr }, value: block }));
    writes.push(
      ds.create({
        key: { kind: 'BlockAffinity', host: node, affinityType: 'host', cidr },
        value: { state: 'confirmed', deleted: false },
      }),
    );
    next += 64;
    if (writes.length > 200) await Promise.all(writes.splice(0));
  }
  await Promise.all(writes);
}

async function populateApi(core: CoreV1Api): Promise<number> {
  const t = performance.now();
  await core.createNamespace({ body: { metadata: { name: 'bench' } } });
  const jobs: (() => Promise<unknown>)[] = [];
  for (let n = 0; n < NODES; n++)
    jobs.push(() =>
      core.createNode({
        body: {
          metadata: { name: `node-${n}`, labels: { 'kubernetes.io/hostname': `node-${n}` } },
        },
      }),
    );
  for (let n = 0; n < NODES; n++) {
    for (let o = 0; o < PER_NODE; o++) {
      jobs.push(() =>
        core.createNamespacedPod({
          namespace: 'bench',
          body: {
            metadata: {
              name: `p-${n}-${o}`,
              labels: { app: 'bench', 'pod-template-hash': '5d8f7c9b4d' },
            },
            spec: {
              nodeName: `node-${n}`,
              containers: [
                {
                  name: 'app',
                  image: 'registry.example/app:1.2.3',
                  ports: [{ containerPort: 8080 }],
                  resources: { requests: { cpu: '100m', memory: '64Mi' } },
                },
              ],
            },
          },
        }),
      );
    }
  }
  let i = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (i < jobs.length) await jobs[i++]!();
    }),
  );
  return (performance.now() - t) / 1000;
}

const dir = mkdtempSync(join(tmpdir(), 'kc-bench-'));
const etcd = await startEtcd();
const api = await startApiserver(dir);
try {
  execFileSync(process.execPath, ['build.mjs'], { cwd: appDir, stdio: 'inherit' });
  const env = { DATASTORE_TYPE: 'etcdv3', ETCD_ENDPOINTS: etcd.endpoints.join(',') };
  const argv = [
    '--kubeconfig',
    api.kubeconfig,
    '--metrics-listen',
    '127.0.0.1:0',
    '--log-level',
    'debug',
  ];
  const bundle = join(appDir, 'dist', 'netledger-kube-controllers.mjs');
  // The same process with nothing to hold: what Node and the code cost by themselves.
  const idle = startReplica({ name: 'idle', bundle, env, argv });
  await idle.waitFor((l) => l.msg === 'GC pass done', 'a pass', 120_000);
  const idleRssKb = rssKb(idle.child.pid!);
  idle.kill('SIGTERM');
  await idle.exited;
  const ds = createEtcdDatastore({ endpoints: etcd.endpoints });
  await populateStore(ds);
  await ds.close();
  const kc = new KubeConfig();
  kc.loadFromFile(api.kubeconfig);
  const apiSeconds = await populateApi(kc.makeApiClient(CoreV1Api));
  console.log(`created ${NODES} nodes and ${NODES * PER_NODE} pods in ${apiSeconds.toFixed(1)} s`);
  const r = startReplica({ name: 'bench', bundle, env, argv });
  const started = performance.now();
  const address = String(
    (await r.waitFor((l) => l.msg === 'serving metrics and health', 'listening')).address,
  );
  await r.waitFor(
    (l) => l.msg === 'GC pass done' && Number(l.scannedNodes) >= NODES,
    'a full pass',
    300_000,
  );
  const syncSeconds = (performance.now() - started) / 1000;
  const metrics = await (await fetch(`http://${address}/metrics`)).text();
  if (!metrics.includes(`ipam_allocations_per_node{node="node-0"} ${PER_NODE}`))
    throw new Error('metrics do not show the allocations');
  const loadedRssKb = rssKb(r.child.pid!);
  const heap = Number(/^nodejs_heap_size_used_bytes (\S+)$/m.exec(metrics)?.[1] ?? NaN);
  const gauge = (name: string): number =>
    Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1] ?? NaN);
  console.log(
    `heap total ${mib(gauge('nodejs_heap_size_total_bytes')).toFixed(1)} MiB, external ${mib(gauge('nodejs_external_memory_bytes')).toFixed(1)} MiB`,
  );
  r.kill('SIGTERM');
  await r.exited;
  const results = [
    {
      name: 'netledger-kube-controllers RSS, 300 nodes / 10,200 pods (after a full pass and a scrape)',
      value: loadedRssKb / 1024,
      unit: 'MiB',
      better: 'lower',
      target: '< 200 MiB',
    },
    {
      name: 'the same process with an empty cluster (Node and the code alone)',
      value: idleRssKb / 1024,
      unit: 'MiB',
      better: 'lower',
    },
    { name: 'its heap used', value: mib(heap), unit: 'MiB', better: 'lower' },
    {
      name: 'start to first full pass (lists of 10,200 pods and the store)',
      value: syncSeconds,
      unit: 's',
      better: 'lower',
    },
  ];
  const out = process.env.NETLEDGER_BENCH_DIR ?? join(root, 'bench-results');
  mkdirSync(out, { recursive: true });
  const report = {
    title: 'netledger-kube-controllers: memory of the real process at 300 nodes / 10,200 pods',
    command: 'pnpm bench --filter=@netledger/kube-controllers-app',
    notes:
      'The built bundle against the real kube-apiserver (300 Nodes, 10,200 Pods) and an etcd store with the matching allocations; RSS from /proc after the first full pass and a /metrics scrape.',
    results,
  };
  writeFileSync(join(out, 'kube-controllers-app.json'), `${JSON.stringify(report, null, 2)}\n`);
  console.log(report.title);
  for (const x of results) console.log(`  ${x.name}: ${x.value.toFixed(2)} ${x.unit}`);
} finally {
  await api.stop();
  await etcd.stop();
  rmSync(dir, { recursive: true, force: true });
}
