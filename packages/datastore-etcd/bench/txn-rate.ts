// Raw etcd transaction rate on this machine: Calico's compare-and-swap update (txn: if
// mod_revision == r then put), sequential and from 16 concurrent writers, straight through etcd3
// and through this package's Datastore.update; beside it, on the same single-member etcd,
// netledger's autoAssign at the same concurrency and the Whereabouts scale case
// (bench/autoassign-rate.ts). Run with `pnpm --filter @netledger/datastore-etcd bench`.
import { cpus } from 'node:os';
import type { Datastore, DatastoreKey } from '@netledger/ipam-core';
import { startEtcd } from '@netledger/testkit';
import { Etcd3 } from 'etcd3';
import { createEtcdDatastore } from '../src/create-etcd-datastore.js';
import { measureAutoAssign, measureScaleCase } from './autoassign-rate.js';
import type { AssignRun } from './autoassign-rate.js';

interface Row {
  members: number;
  path: string;
  writers: number;
  txns: number;
  seconds: number;
  latencies: number[];
}

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const TOTAL = arg('txns', 2000);
const CONCURRENCY = 16;
const PER_HOST = arg('per-host', 62); // assigns per host after the warm-up; one /26 block holds 63 more
const SCALE_NODES = 100;
const SCALE_PODS_PER_NODE = 5;
const RATIO_TARGET = 0.6;
const SCALE_TARGET_S = 5;

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

/** Runs `writers` loops of `perWriter` CAS writes, each on its own key, and times them. */
async function measure(
  writers: number,
  perWriter: number,
  setup: (w: number) => Promise<() => Promise<void>>,
): Promise<{ seconds: number; latencies: number[] }> {
  const steps = await Promise.all(Array.from({ length: writers }, (_, w) => setup(w)));
  const latencies: number[] = [];
  const start = performance.now();
  await Promise.all(
    steps.map(async (step) => {
      for (let i = 0; i < perWriter; i++) {
        const t = performance.now();
        await step();
        latencies.push(performance.now() - t);
      }
    }),
  );
  return {
    seconds: (performance.now() - start) / 1000,
    latencies: latencies.sort((a, b) => a - b),
  };
}

/** A raw etcd3 CAS step on `key`: txn(ModRevision == r ? Put : Get), tracking r. */
async function rawStep(client: Etcd3, key: string): Promise<() => Promise<void>> {
  const k = Buffer.from(key);
  let revision = (await client.put(key).value('0').exec()).header.revision;
  let n = 0;
  return async () => {
    const res = await client.kv.txn({
      compare: [{ key: k, target: 'Mod', result: 'Equal', mod_revision: revision }],
      success: [{ request_put: { key: k, value: Buffer.from(String(++n)) } }],
      failure: [{ request_range: { key: k } }],
    });
    if (!res.succeeded) throw new Error(`unexpected conflict on ${key}`);
    revision = res.header.revision;
  };
}

/** The same CAS through Datastore.update on an IPAM handle. */
async function datastoreStep(ds: Datastore, handleId: string): Promise<() => Promise<void>> {
  const key: DatastoreKey<'IPAMHandle'> = { kind: 'IPAMHandle', handleId };
  let kv = await ds.apply({
    key,
    value: { handleId, block: { '10.0.0.0/26': 0 }, deleted: false },
  });
  return async () => {
    kv = await ds.update({
      ...kv,
      value: { ...kv.value, block: { '10.0.0.0/26': kv.value.block['10.0.0.0/26']! + 1 } },
    });
  };
}

/** autoAssign figures of one concurrency, beside the raw CAS rate measured just before it. */
interface AssignRow {
  concurrency: number;
  mirrored: boolean;
  run: AssignRun;
  rawRate: number;
}

const rateOf = (r: { txns: number; seconds: number }): number => r.txns / r.seconds;
const assignRate = (r: AssignRun): number => r.assigns / r.seconds;
const writesPerAssign = (r: AssignRun): number => r.counts.writes / r.assigns;
/** The etcd write load autoAssign sustains, as a share of the raw CAS rate (the ceiling). */
const ceilingShare = (a: AssignRow): number =>
  (assignRate(a.run) * writesPerAssign(a.run)) / a.rawRate;

async function benchCluster(
  members: number,
): Promise<{ rows: Row[]; assigns: AssignRow[]; scale?: AssignRun }> {
  const etcd = await startEtcd({ members });
  const client = new Etcd3({ hosts: etcd.endpoints });
  const ds = createEtcdDatastore({ endpoints: etcd.endpoints });
  const rows: Row[] = [];
  const assigns: AssignRow[] = [];
  let scale: AssignRun | undefined;
  try {
    for (const writers of [1, CONCURRENCY]) {
      const per = Math.ceil(TOTAL / writers);
      const raw = await measure(writers, per, (w) => rawStep(client, `/bench/raw/${writers}/${w}`));
      const rawRow = { members, path: 'etcd3 txn', writers, txns: writers * per, ...raw };
      rows.push(rawRow);
      const viaDs = await measure(writers, per, (w) => datastoreStep(ds, `bench-${writers}-${w}`));
      rows.push({ members, path: 'Datastore.update', writers, txns: writers * per, ...viaDs });
      if (members === 1) {
        // Side by side with the raw rate just measured: 16 hosts, taking turns or all at once,
        // with plain clients and with long-lived clients reading through a mirror.
        for (const mirrored of [false, true]) {
          const run = await measureAutoAssign(client, etcd.endpoints, {
            hosts: CONCURRENCY,
            perHost: PER_HOST,
            concurrent: writers > 1,
            mirrored,
            sharedConnection: true,
          });
          assigns.push({ concurrency: writers, mirrored, run, rawRate: rateOf(rawRow) });
        }
      }
    }
    if (members === 1) {
      scale = await measureScaleCase(client, etcd.endpoints, {
        nodes: SCALE_NODES,
        podsPerNode: SCALE_PODS_PER_NODE,
      });
    }
  } finally {
    await ds.close();
    client.close();
    await etcd.stop();
  }
  return { rows, assigns, ...(scale && { scale }) };
}

const single = await benchCluster(1);
const triple = await benchCluster(3);
const rows = [...single.rows, ...triple.rows];
const { assigns, scale } = single;
console.log(
  `CAS transaction rate: ${TOTAL} txns per row, node ${process.version}, ${cpus().length} x ${cpus()[0]?.model ?? '?'}\n`,
);
console.log('| etcd members | path | writers | txns | txn/s | p50 ms | p99 ms |');
console.log('|---:|---|---:|---:|---:|---:|---:|');
for (const r of rows) {
  const rate = Math.round(r.txns / r.seconds);
  console.log(
    `| ${r.members} | ${r.path} | ${r.writers} | ${r.txns} | ${rate} | ${percentile(r.latencies, 0.5).toFixed(2)} | ${percentile(r.latencies, 0.99).toFixed(2)} |`,
  );
}

console.log(
  `\nautoAssign on 1 etcd member, 1 address per call into an affine /26, ${PER_HOST} per host, beside the raw CAS rate at the same concurrency\n`,
);
console.log(
  '| client | in flight | assigns | failures | assign/s | p50 ms | p99 ms | writes/assign | applied writes/assign | reads/assign | raw txn/s | share of raw |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const a of assigns) {
  const r = a.run;
  console.log(
    `| ${a.mirrored ? 'mirrored' : 'plain'} | ${a.concurrency} | ${r.assigns} | ${r.failures} | ${Math.round(assignRate(r))} | ${percentile(r.latencies, 0.5).toFixed(2)} | ${percentile(r.latencies, 0.99).toFixed(2)} | ${writesPerAssign(r).toFixed(2)} | ${(r.revisions / r.assigns).toFixed(2)} | ${(r.counts.reads / r.assigns).toFixed(2)} | ${Math.round(a.rawRate)} | ${(100 * ceilingShare(a)).toFixed(0)}% |`,
  );
}
if (scale) {
  console.log(
    `\nWhereabouts scale case: ${scale.assigns} pods on ${scale.hosts} nodes, all at once: ${scale.seconds.toFixed(2)} s wall (target < ${SCALE_TARGET_S} s; Whereabouts 274 s), ${scale.failures} failures, p50 ${percentile(scale.latencies, 0.5).toFixed(0)} ms, p99 ${percentile(scale.latencies, 0.99).toFixed(0)} ms, ${(scale.counts.writes / scale.assigns).toFixed(2)} writes/pod`,
  );
}
const failures = assigns.reduce((n, a) => n + a.run.failures, 0) + (scale?.failures ?? 0);
if (failures > 0) {
  console.error(`${failures} autoAssign calls failed`);
  process.exitCode = 1;
}

// The figures, where `pnpm bench` (scripts/bench.mjs) collects them.
if (process.env.NETLEDGER_BENCH_DIR) {
  const { mkdirSync, writeFileSync } = await import('node:fs');
  mkdirSync(process.env.NETLEDGER_BENCH_DIR, { recursive: true });
  const results: { name: string; value: number; unit: string; better: string; target?: string }[] =
    rows.flatMap((r) => {
      const label = `${r.path}, ${r.members} member${r.members > 1 ? 's' : ''}, ${r.writers} writer${r.writers > 1 ? 's' : ''}`;
      return [
        { name: `${label}: rate`, value: r.txns / r.seconds, unit: 'txn/s', better: 'higher' },
        {
          name: `${label}: p99`,
          value: percentile(r.latencies, 0.99),
          unit: 'ms',
          better: 'lower',
        },
      ];
    });
  for (const a of assigns) {
    const label = `autoAssign${a.mirrored ? ' (mirrored client)' : ''}, 1 member, ${a.concurrency === 1 ? '1 host at a time' : `${a.concurrency} concurrent hosts`}`;
    results.push(
      { name: `${label}: rate`, value: assignRate(a.run), unit: 'assign/s', better: 'higher' },
      {
        name: `${label}: p99`,
        value: percentile(a.run.latencies, 0.99),
        unit: 'ms',
        better: 'lower',
      },
      {
        name: `${label}: etcd writes per assign`,
        value: writesPerAssign(a.run),
        unit: 'txn',
        better: 'lower',
      },
      {
        name: `${label}: (assign/s x writes per assign) / raw txn/s`,
        value: 100 * ceilingShare(a),
        unit: '%',
        better: 'higher',
        target: `>= ${100 * RATIO_TARGET}%`,
      },
    );
  }
  if (scale) {
    results.push({
      name: `Whereabouts scale case (${scale.assigns} pods on ${scale.hosts} nodes, all at once): wall time`,
      value: scale.seconds,
      unit: 's',
      better: 'lower',
      target: `< ${SCALE_TARGET_S} s (Whereabouts: 274 s)`,
    });
  }
  const report = {
    title: 'datastore-etcd: compare-and-swap transaction rate on real etcd (loopback, temp dir)',
    command: 'pnpm bench --filter=@netledger/datastore-etcd',
    notes:
      `${TOTAL} transactions per CAS row; "etcd3 txn" is the raw client (the ceiling), "Datastore.update" the same CAS through the adapter. ` +
      `autoAssign rows: 16 hosts, each its own IPAM client (its own per-host lock, block hints and, when mirrored, mirror) over one shared etcd connection, as the raw rows' writers share one, ${PER_HOST} single-address assigns each into the /26 it claimed in an untimed warm-up, ` +
      `with plain clients (every assign reads pools, reservations, config, the host's affinities, its Node and the block) and with "mirrored" clients (long-lived: createMirroredDatastore serves pools, reservations, config, Nodes and affinities from a watch-fed mirror, and the client writes over the block version it last wrote; every write is still a compare-and-swap on etcd), ` +
      `taking turns (1 in flight) or all at once (16 in flight), measured on the same single-member etcd right after the raw CAS row of the same concurrency; ` +
      `writes per assign are the Datastore writes (etcd transactions) counted by a wrapper. ` +
      `Whereabouts case: ${SCALE_NODES} nodes x ${SCALE_PODS_PER_NODE} pods, every autoAssign started at once on a fresh pool (each node claims its block in the run). ` +
      `The machine is shared and noisy (other work runs; etcd fsync latency varies), so compare figures within one run.`,
    results,
  };
  writeFileSync(
    `${process.env.NETLEDGER_BENCH_DIR}/datastore-etcd.json`,
    `${JSON.stringify(report, null, 2)}\n`,
  );
}
