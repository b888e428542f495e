// IPAM GC benchmark (`pnpm bench --filter=@netledger/kube-controllers`):
// 1. one full GC pass over 100,000 allocations on 250 nodes (every pod alive: everything judged);
// 2. the controller's memory holding 300 nodes / 10,000 pods (store state, slim pod cache,
//    metrics), measured as process RSS and heap;
// 3. 250 nodes deleted at once: time until every address and block is back in the pool, with the
//    real controller loop (1 s batch window, 10,000 releases per pass) on the memory store.
// The store is the in-memory one, so the figures are the controller's own work, not etcd's.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createIpamClient, createMemoryDatastore } from '@netledger/ipam-core';
import type { AllocationAttribute, AllocationBlock, Datastore } from '@netledger/ipam-core';
import { GC_STORE_KINDS, applyStoreChange } from '../src/gc/apply-store-change.js';
import { runGcPass } from '../src/gc/pass/gc-pass.js';
import { ipamGcSettings } from '../src/gc/gc-settings.js';
import { GcState } from '../src/gc/gc-state.js';
import { createIpamGcController } from '../src/gc/ipam-gc-controller.js';
import { computeIpamMetrics } from '../src/gc/ipam-metrics-model.js';
import { createItemBackoff } from '../src/manager/item-backoff.js';
import { silentLogger } from '../src/logger.js';
import { slimPod } from '../src/kube/slim-pod.js';
import type { SlimPod } from '../src/kube/slim-pod.js';
import { createFakeContext } from '../src/manager/test-fake-context.js';

interface BenchResult {
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  readonly better: 'higher' | 'lower';
  readonly target?: string;
}

// run-ts.mjs sets argv[1] to this file's path; the package directory is the working directory.
const BENCH_FILE = process.argv[1]!;
const RUN_TS = join(process.cwd(), '..', '..', 'scripts', 'run-ts.mjs');
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
const mib = (n: number): number => n / 1024 / 1024;
const BASE = 10 << 24; // 10.0.0.0

const ipOf = (n: number): string => [24, 16, 8, 0].map((s) => (n >>> s) & 255).join('.');

/** A full Pod as the API server returns it (what an informer would otherwise hold). */
function fullPod(name: string, node: string, ip: string): unknown {
  return {
    metadata: {
      name,
      namespace: 'bench',
      uid: `00000000-0000-4000-8000-${name.padStart(12, '0').slice(-12)}`,
      resourceVersion: '12345',
      creationTimestamp: '2026-01-01T00:00:00Z',
      labels: { app: 'bench', 'pod-template-hash': '5d8f7c9b4d' },
      annotations: {
        'cni.projectcalico.org/podIP': `${ip}/32`,
        'cni.projectcalico.org/podIPs': `${ip}/32`,
      },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: 'bench-5d8f7c9b4d',
          uid: 'x',
          controller: true,
        },
      ],
      managedFields: [
        {
          manager: 'kube-controller-manager',
          operation: 'Update',
          apiVersion: 'v1',
          time: '2026-01-01T00:00:00Z',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:metadata': { 'f:labels': {} }, 'f:spec': { 'f:containers': {} } },
        },
      ],
    },
    spec: {
      nodeName: node,
      serviceAccountName: 'default',
      restartPolicy: 'Always',
      dnsPolicy: 'ClusterFirst',
      containers: [
        {
          name: 'app',
          image: 'registry.example/app:1.2.3',
          ports: [{ containerPort: 8080, protocol: 'TCP' }],
          resources: { requests: { cpu: '100m', memory: '64Mi' } },
          volumeMounts: [
            {
              name: 'kube-api-access',
              mountPath: '/var/run/secrets/kubernetes.io/serviceaccount',
              readOnly: true,
            },
          ],
        },
      ],
      volumes: [
        {
          name: 'kube-api-access',
          projected: {
            sources: [{ serviceAccountToken: { expirationSeconds: 3607, path: 'token' } }],
          },
        },
      ],
      tolerations: [
        {
          key: 'node.kubernetes.io/not-ready',
          operator: 'Exists',
          effect: 'NoExecute',
          tolerationSeconds: 300,
        },
      ],
    },
    status: {
      phase: 'Running',
      podIP: ip,
      podIPs: [{ ip }],
      hostIP: '192.168.0.1',
      startTime: '2026-01-01T00:00:00Z',
      conditions: ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({
        type,
        status: 'True',
        lastTransitionTime: '2026-01-01T00:00:00Z',
      })),
      containerStatuses: [
        {
          name: 'app',
          ready: true,
          restartCount: 0,
          image: 'registry.example/app:1.2.3',
          imageID: 'sha256:0123456789abcdef',
          containerID: 'containerd://0123456789abcdef',
          state: { running: { startedAt: '2026-01-01T00:00:00Z' } },
        },
      ],
    },
  };
}

/**
 * Writes `nodes` nodes with `perNode` pod allocations each into the store as /26 blocks (written
 * directly: building them through autoAssign would measure ipam-core, not the GC).
 */
async function populate(
  ds: Datastore,
  nodes: number,
  perNode: number,
): Promise<{ pods: SlimPod[]; nodeNames: string[] }> {
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
  const pods: SlimPod[] = [];
  const nodeNames: string[] = [];
  let next = BASE;
  const seq = 1767225600000000001n;
  for (let n = 0; n < nodes; n++) {
    const node = `node-${n}`;
    nodeNames.push(node);
    await ds.create({ key: { kind: 'Node', name: node }, value: { metadata: { name: node } } });
    let left = perNode;
    while (left > 0) {
      const cidr = `${ipOf(next)}/26`;
      const count = Math.min(64, left);
      const allocations: (number | null)[] = Array.from({ length: 64 }, () => null);
      const attributes: AllocationAttribute[] = [];
      const seqs: Record<string, bigint> = {};
      for (let o = 0; o < count; o++) {
        const name = `p-${n}-${perNode - left + o}`;
        allocations[o] =
          attributes.push({
            handleId: `k8s-pod-network.${name}`,
            activeOwnerAttrs: {
              namespace: 'bench',
              pod: name,
              node,
              timestamp: '2026-01-01 00:00:00 +0000 UTC',
            },
          }) - 1;
        seqs[String(o)] = seq;
        const ip = ipOf(next + o);
        pods.push(slimPod(fullPod(name, node, ip)));
        await ds.create({
          key: { kind: 'IPAMHandle', handleId: `k8s-pod-network.${name}` },
          value: { handleId: `k8s-pod-network.${name}`, block: { [cidr]: 1 }, deleted: false },
        });
      }
      const block: AllocationBlock = {
        cidr,
        affinity: `host:${node}`,
        affinityClaimTime: '2026-01-01T00:00:00Z',
        allocations,
        unallocated: allocations.flatMap((a, i) => (a === null ? [i] : [])),
        attributes,
        sequenceNumber: seq,
        sequenceNumberForAllocation: seqs,
        deleted: false,
      };
      await ds.create({ key: { kind: 'IPAMBlock', cidr }, value: block });
      await ds.create({
        key: { kind: 'BlockAffinity', host: node, affinityType: 'host', cidr },
        value: { state: 'confirmed', deleted: false },
      });
      next += 64;
      left -= count;
    }
  }
  return { pods, nodeNames };
}

async function stateOf(ds: Datastore): Promise<GcState> {
  const state = new GcState();
  for (const kind of GC_STORE_KINDS)
    for (const kv of (await ds.list({ kind })).items) applyStoreChange(state, { type: 'put', kv });
  return state;
}

async function memoryScenario(): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  gc();
  const before = process.memoryUsage();
  const ds = createMemoryDatastore();
  const { pods, nodeNames } = await populate(ds, 300, 34); // 10,200 pods
  gc();
  const storeOnly = process.memoryUsage();
  const ctx = createFakeContext({
    datastore: ds,
    ipam: createIpamClient({ datastore: ds }),
    logger: silentLogger,
  });
  for (const n of nodeNames) ctx.nodes.set({ metadata: { name: n, uid: n } });
  for (const p of pods) ctx.pods.set(p);
  pods.length = 0;
  const controller = createIpamGcController({ settings: ipamGcSettings({ batchWindowMs: 0 }) });
  const firstPass = new Promise((r) => controller.events.once('pass', r));
  await controller.start(ctx);
  await firstPass;
  controller.beforeScrape?.();
  await ctx.registry.metrics();
  gc();
  const after = process.memoryUsage();
  // The store is the memory datastore here (another process in production): its share is taken out.
  const heapMiB = mib(after.heapUsed - storeOnly.heapUsed);
  results.push(
    {
      name: 'controller heap at 300 nodes / 10,200 pods (store excluded)',
      value: heapMiB,
      unit: 'MiB',
      better: 'lower',
    },
    {
      name: 'process RSS at 300 nodes / 10,200 pods (store in-process)',
      value: mib(after.rss),
      unit: 'MiB',
      better: 'lower',
      target: '< 200 MiB',
    },
    {
      name: 'process RSS before (Node baseline)',
      value: mib(before.rss),
      unit: 'MiB',
      better: 'lower',
    },
  );
  await controller.stop();
  await ds.close();
  return results;
}

if (process.argv[2] === 'memory') {
  console.log(JSON.stringify(await memoryScenario()));
  process.exit(0);
}

const results: BenchResult[] = [];

// 1. One full pass over 100,000 allocations on 250 nodes.
{
  const ds = createMemoryDatastore();
  const { pods, nodeNames } = await populate(ds, 250, 400);
  const podMap = new Map(pods.map((p) => [`${p.metadata.namespace}/${p.metadata.name}`, p]));
  const nodes = new Set(nodeNames);
  const t0 = performance.now();
  const state = await stateOf(ds);
  const buildMs = performance.now() - t0;
  const ipam = createIpamClient({ datastore: ds });
  const pass = async (): Promise<number> => {
    state.fullScanRequired = true;
    const t = performance.now();
    const r = await runGcPass({
      state,
      settings: ipamGcSettings(),
      backoff: createItemBackoff({ baseMs: 1000, maxMs: 60_000 }),
      nowMs: Date.now(),
      ports: {
        ipam,
        datastore: ds,
        logger: silentLogger,
        isLeader: () => true,
        cache: {
          kubernetesNodeExists: (n) => nodes.has(n),
          pod: (ns, name) => podMap.get(`${ns}/${name}`),
        },
        live: {
          pod: async (ns, name) => podMap.get(`${ns}/${name}`),
          nodeExists: async (n) => nodes.has(n),
        },
      },
    });
    if (r.scannedNodes !== 250 || state.allocations.size !== 100_000 || r.candidates !== 0)
      throw new Error(`unexpected pass: ${JSON.stringify(r)}`);
    return performance.now() - t;
  };
  await pass(); // warm-up
  const samples = [await pass(), await pass(), await pass()].sort((a, b) => a - b);
  const t1 = performance.now();
  computeIpamMetrics(state);
  const metricsMs = performance.now() - t1;
  results.push(
    {
      name: 'full GC pass, 100,000 allocations on 250 nodes (median of 3)',
      value: samples[1]!,
      unit: 'ms',
      better: 'lower',
      target: '< 2000 ms',
    },
    {
      name: 'state built from the store, 100,000 allocations',
      value: buildMs,
      unit: 'ms',
      better: 'lower',
    },
    {
      name: 'metrics full recompute, 100,000 allocations',
      value: metricsMs,
      unit: 'ms',
      better: 'lower',
    },
  );
  await ds.close();
}

// 2. Memory, in a fresh process (this one's heap holds scenario 1's garbage).
if (process.argv[2] !== 'pass') {
  const out = execFileSync(process.execPath, ['--expose-gc', RUN_TS, BENCH_FILE, 'memory'], {
    encoding: 'utf8',
  });
  results.push(...(JSON.parse(out.trim().split('\n').pop()!) as BenchResult[]));
}

// 3. 250 nodes (100,000 addresses) deleted at once: time until everything is back in the pool.
if (process.argv[2] !== 'pass') {
  const ds = createMemoryDatastore();
  const { nodeNames } = await populate(ds, 250, 400);
  const ctx = createFakeContext({
    datastore: ds,
    ipam: createIpamClient({ datastore: ds }),
    logger: silentLogger,
  });
  for (const n of nodeNames) ctx.nodes.set({ metadata: { name: n, uid: n } });
  const controller = createIpamGcController({
    settings: ipamGcSettings(),
    deleteCalicoNodes: true,
  });
  const synced = new Promise((r) => controller.events.once('pass', r));
  await controller.start(ctx);
  await synced;
  const t = performance.now();
  for (const n of nodeNames) ctx.nodes.delete(n);
  await new Promise<void>((resolve) => {
    const check = async (): Promise<void> => {
      const blocks = await ds.list({ kind: 'IPAMBlock' });
      const affinities = await ds.list({ kind: 'BlockAffinity' });
      if (blocks.items.length === 0 && affinities.items.length === 0) {
        controller.events.off('pass', onPass);
        resolve();
      }
    };
    const onPass = (): void => void check();
    controller.events.on('pass', onPass);
  });
  const seconds = (performance.now() - t) / 1000;
  const handles = (await ds.list({ kind: 'IPAMHandle' })).items.length;
  results.push({
    name: '250 nodes (100,000 addresses) deleted at once: all blocks and affinities released',
    value: seconds,
    unit: 's',
    better: 'lower',
    target: '< 60 s',
  });
  if (handles !== 0) throw new Error(`${handles} handles left`);
  await controller.stop();
  await ds.close();
}

const report = {
  title: 'IPAM GC (kube-controllers): pass time, memory, mass node deletion',
  command: 'pnpm bench --filter=@netledger/kube-controllers',
  notes:
    "In-memory store (the controller's own work; etcd adds its round trips). Pass: full scan, every pod alive. Memory: the real controller with slim pod caches; RSS includes the in-process store. Node deletion: the real controller loop, 1 s batch window, 10,000 releases per pass.",
  results,
};
const dir = process.env.NETLEDGER_BENCH_DIR ?? join(process.cwd(), 'bench-results');
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, 'kube-controllers.json'), `${JSON.stringify(report, null, 2)}\n`);
console.log(report.title);
for (const r of results)
  console.log(
    `  ${r.name}: ${r.value.toFixed(2)} ${r.unit}${r.target ? ` (target ${r.target})` : ''}`,
  );
