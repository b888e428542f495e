// netledger autoAssign through datastore-k8s on the real kube-apiserver (tools/kube-test-apiserver):
// the rate into the host's existing block, and what each assign costs in API requests, read from
// the API server's own `apiserver_request_total`, with 10 and with 1,000 nodes' worth of Nodes,
// blocks and affinities in the store. Once with one long-lived client (a daemon), once with a new
// client per assign (what the CNI plugin pays per ADD: a fresh process, no cache). Run with
// `node scripts/bench.mjs @netledger/datastore-k8s` (or `pnpm --filter @netledger/datastore-k8s bench`).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchResult } from '@netledger/bench';
import { percentile, writeBenchResults } from '@netledger/bench';
import type { Datastore } from '@netledger/ipam-core';
import { createIpamClient } from '@netledger/ipam-core';
import { BlockBuilder, buildPool, startKubeApiserver } from '@netledger/testkit';
import type { KubeApiserverFixture } from '@netledger/testkit';
import { createK8sDatastore } from '../src/create-k8s-datastore.js';
import { createKubeHttp, loadKubeConfig } from '../src/kube-http.js';
import { createTokenBucket } from '../src/token-bucket.js';

const CRD_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'crds');
const WARM_ASSIGNS = 25;
const FRESH_ASSIGNS = 12;
const SIZES = [10, 1000] as const;
const HOST = 'bench-node';

async function must(api: KubeApiserverFixture, args: string[]): Promise<void> {
  const r = await api.kubectl(args);
  if (r.status !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
}

/** Sum of apiserver_request_total over Calico's CRDs and Nodes, by verb. */
async function requestTotals(api: KubeApiserverFixture): Promise<Map<string, number>> {
  const http = createKubeHttp(loadKubeConfig({ kubeconfig: api.kubeconfigPath }), {
    requestTimeoutMs: 30_000,
    limiter: createTokenBucket({ qps: 1000, burst: 1000 }),
  });
  try {
    const res = await http.request({ method: 'GET', path: '/metrics' });
    const totals = new Map<string, number>();
    for (const line of (typeof res.body === 'string' ? res.body : '').split('\n')) {
      if (!line.startsWith('apiserver_request_total{')) continue;
      // Only what a datastore client asks for: the API server's own requests (its identity
      // lease renewals, every 10 s) are in the same counter.
      const group = /group="([^"]*)"/.exec(line)?.[1] ?? '';
      const resource = /resource="([^"]*)"/.exec(line)?.[1] ?? '';
      if (group !== 'crd.projectcalico.org' && resource !== 'nodes') continue;
      const verb = /verb="([^"]*)"/.exec(line)?.[1] ?? '?';
      const n = Number(line.slice(line.lastIndexOf(' ') + 1));
      totals.set(verb, (totals.get(verb) ?? 0) + n);
    }
    return totals;
  } finally {
    http.close();
  }
}

function delta(before: Map<string, number>, after: Map<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [verb, n] of after) {
    const d = n - (before.get(verb) ?? 0);
    if (d > 0) out[verb] = d;
  }
  return out;
}

const sum = (r: Record<string, number>): number => Object.values(r).reduce((a, b) => a + b, 0);

/** Empties the store, then writes `nodes` Nodes, each with a confirmed affinity and its block. */
async function seed(api: KubeApiserverFixture, nodes: number): Promise<void> {
  const ds = createK8sDatastore({ kubeconfig: api.kubeconfigPath, qps: 1000, burst: 1000 });
  try {
    for (const r of ['ipamblocks', 'blockaffinities', 'ipamhandles', 'ippools'])
      await must(api, ['delete', r, '--all']);
    await must(api, ['delete', 'nodes', '--all']);
    const ipam = createIpamClient({ datastore: ds });
    await ipam.pools.create(buildPool('bench', '10.0.0.0/8', { blockSize: 26 }));
    await ipam.nodes.create({ metadata: { name: HOST } });
    const batch = 20;
    for (let i = 0; i < nodes; i += batch) {
      await Promise.all(
        Array.from({ length: Math.min(batch, nodes - i) }, async (_, j) => {
          const n = i + j;
          const name = `node-${n}`;
          const cidr = `10.${1 + (n >> 10)}.${(n >> 2) & 255}.${(n & 3) * 64}/26`;
          await ds.create({ key: { kind: 'Node', name }, value: { metadata: { name } } });
          await ds.create({
            key: { kind: 'IPAMBlock', cidr },
            value: { ...new BlockBuilder(cidr).affine(name).build(), cidr },
          });
          await ds.create({
            key: { kind: 'BlockAffinity', host: name, cidr, affinityType: 'host' },
            value: { state: 'confirmed', deleted: false },
          });
        }),
      );
    }
  } finally {
    await ds.close();
  }
}

interface Run {
  readonly perAssign: number;
  readonly byVerb: Record<string, number>;
  readonly rate: number;
  readonly p50: number;
}

async function measure(
  api: KubeApiserverFixture,
  assigns: number,
  client: () => { ds: Datastore; fresh: boolean },
): Promise<Run> {
  let shared: Datastore | undefined;
  const latencies: number[] = [];
  const before = await requestTotals(api);
  const start = performance.now();
  for (let i = 0; i < assigns; i++) {
    const c = shared ? { ds: shared, fresh: false } : client();
    if (!c.fresh) shared = c.ds;
    const t = performance.now();
    const ipam = createIpamClient({ datastore: c.ds });
    const { v4 } = await ipam.autoAssign({
      num4: 1,
      hostname: HOST,
      handleId: `bench-${performance.now()}-${i}`,
      intendedUse: 'Workload',
    });
    if (v4.ips.length !== 1) throw new Error(`assign ${i} got ${v4.ips.length} addresses`);
    latencies.push(performance.now() - t);
    if (c.fresh) await c.ds.close();
  }
  const seconds = (performance.now() - start) / 1000;
  const byVerb = delta(before, await requestTotals(api));
  await shared?.close();
  latencies.sort((a, b) => a - b);
  return {
    perAssign: sum(byVerb) / assigns,
    byVerb,
    rate: assigns / seconds,
    p50: percentile(latencies, 50),
  };
}

const api = await startKubeApiserver();
const results: BenchResult[] = [];
const notes: string[] = [];
try {
  await must(api, ['apply', '-f', CRD_DIR]);
  await must(api, ['wait', '--for', 'condition=Established', '--timeout=60s', 'crd', '--all']);
  for (const nodes of SIZES) {
    await seed(api, nodes);
    // The host's first assign claims its block; the measured ones go into it.
    const warmUp = createK8sDatastore({ kubeconfig: api.kubeconfigPath });
    await createIpamClient({ datastore: warmUp }).autoAssign({
      num4: 1,
      hostname: HOST,
      handleId: 'warm-up',
      intendedUse: 'Workload',
    });
    await warmUp.close();
    const open = (): Datastore => createK8sDatastore({ kubeconfig: api.kubeconfigPath });
    const unlimited = await measure(api, WARM_ASSIGNS, () => ({
      ds: createK8sDatastore({ kubeconfig: api.kubeconfigPath, qps: 10_000, burst: 10_000 }),
      fresh: false,
    }));
    const warm = await measure(api, WARM_ASSIGNS, () => ({ ds: open(), fresh: false }));
    const fresh = await measure(api, FRESH_ASSIGNS, () => ({ ds: open(), fresh: true }));
    results.push(
      {
        name: `autoAssign rate, one client without client-side limit, ${nodes} nodes`,
        value: unlimited.rate,
        unit: 'assigns/s',
        better: 'higher',
      },
      {
        name: `autoAssign p50, one client without client-side limit, ${nodes} nodes`,
        value: unlimited.p50,
        unit: 'ms',
        better: 'lower',
      },
      {
        name: `autoAssign rate, one client (default 50 qps / 100 burst), ${nodes} nodes`,
        value: warm.rate,
        unit: 'assigns/s',
        better: 'higher',
      },
      {
        name: `autoAssign p50, one client (default limits), ${nodes} nodes`,
        value: warm.p50,
        unit: 'ms',
        better: 'lower',
      },
      {
        name: `API requests per assign, one client, ${nodes} nodes`,
        value: warm.perAssign,
        unit: 'requests',
        better: 'lower',
      },
      {
        name: `autoAssign p50, new client per assign (CNI ADD), ${nodes} nodes`,
        value: fresh.p50,
        unit: 'ms',
        better: 'lower',
      },
      {
        name: `API requests per assign, new client per assign (CNI ADD), ${nodes} nodes`,
        value: fresh.perAssign,
        unit: 'requests',
        better: 'lower',
      },
    );
    notes.push(
      `${nodes} nodes: one client ${JSON.stringify(warm.byVerb)} over ${WARM_ASSIGNS} assigns; ` +
        `new client per assign ${JSON.stringify(fresh.byVerb)} over ${FRESH_ASSIGNS}`,
    );
  }
} finally {
  await api.stop();
}
writeBenchResults('datastore-k8s', {
  title:
    'datastore-k8s: autoAssign on kube-apiserver v1.32 (Calico CRDs), requests from apiserver_request_total',
  command: 'node scripts/bench.mjs @netledger/datastore-k8s',
  notes: `Assigns into the host's existing /26 block, one at a time. Requests by verb: ${notes.join('; ')}.`,
  results,
});
