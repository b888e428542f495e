// Raw etcd transaction rate on this machine: Calico's compare-and-swap update (txn: if
// mod_revision == r then put), sequential and from 16 concurrent writers, straight through etcd3
// and through this package's Datastore.update. Run with `pnpm --filter @netledger/datastore-etcd bench`.
import { cpus } from 'node:os';
import type { Datastore, DatastoreKey } from '@netledger/ipam-core';
import { startEtcd } from '@netledger/testkit';
import { Etcd3 } from 'etcd3';
import { createEtcdDatastore } from '../src/create-etcd-datastore.js';

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

async function benchCluster(members: number): Promise<Row[]> {
  const etcd = await startEtcd({ members });
  const client = new Etcd3({ hosts: etcd.endpoints });
  const ds = createEtcdDatastore({ endpoints: etcd.endpoints });
  const rows: Row[] = [];
  try {
    for (const writers of [1, CONCURRENCY]) {
      const per = Math.ceil(TOTAL / writers);
      const raw = await measure(writers, per, (w) => rawStep(client, `/bench/raw/${writers}/${w}`));
      rows.push({ members, path: 'etcd3 txn', writers, txns: writers * per, ...raw });
      const viaDs = await measure(writers, per, (w) => datastoreStep(ds, `bench-${writers}-${w}`));
      rows.push({ members, path: 'Datastore.update', writers, txns: writers * per, ...viaDs });
    }
  } finally {
    await ds.close();
    client.close();
    await etcd.stop();
  }
  return rows;
}

const rows = [...(await benchCluster(1)), ...(await benchCluster(3))];
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

// The figures, where `pnpm bench` (scripts/bench.mjs) collects them.
if (process.env.NETLEDGER_BENCH_DIR) {
  const { mkdirSync, writeFileSync } = await import('node:fs');
  mkdirSync(process.env.NETLEDGER_BENCH_DIR, { recursive: true });
  const results = rows.flatMap((r) => {
    const label = `${r.path}, ${r.members} member${r.members > 1 ? 's' : ''}, ${r.writers} writer${r.writers > 1 ? 's' : ''}`;
    return [
      { name: `${label}: rate`, value: r.txns / r.seconds, unit: 'txn/s', better: 'higher' },
      { name: `${label}: p99`, value: percentile(r.latencies, 0.99), unit: 'ms', better: 'lower' },
    ];
  });
  const report = {
    title: 'datastore-etcd: compare-and-swap transaction rate on real etcd (loopback, temp dir)',
    command: 'pnpm bench --filter=@netledger/datastore-etcd',
    notes: `${TOTAL} transactions per row; "etcd3 txn" is the raw client (the ceiling), "Datastore.update" the same CAS through the adapter.`,
    results,
  };
  writeFileSync(
    `${process.env.NETLEDGER_BENCH_DIR}/datastore-etcd.json`,
    `${JSON.stringify(report, null, 2)}\n`,
  );
}
