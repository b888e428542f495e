// CAS update throughput of the file datastore: get + update of one key (or of distinct keys),
// in one process and in 4 processes at once. Run with `pnpm --filter @netledger/datastore-file
// bench`, which bundles this file with esbuild and runs it with node; the same bundle is spawned
// as the worker processes. Prints a markdown table.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { IpamError } from '@netledger/ipam-core';
import { encodeValue } from '@netledger/ipam-core/adapter';
import type { DatastoreKey } from '@netledger/ipam-core';
import { BlockBuilder } from '@netledger/testkit';
import { mutateSnapshot } from '../src/mutate-snapshot.js';
import { createFileDatastore } from '../src/file-datastore.js';
import { serializeStoreDocument } from '../src/store-document.js';
import type { StoreSnapshot } from '../src/store-snapshot.js';
import { emptySnapshot } from '../src/store-snapshot.js';

interface WorkerArgs {
  readonly path: string;
  readonly keys: string[];
  readonly durationMs: number;
}

interface WorkerResult {
  readonly updates: number;
  readonly conflicts: number;
  readonly latenciesMs: number[];
}

interface Scenario {
  readonly name: string;
  readonly processes: number;
  /** Keys each process updates, round robin. */
  readonly keysOf: (worker: number) => string[];
  /** Extra /26 blocks in the store, to show how the file size weighs on each write. */
  readonly blocks: number;
}

const handleKey = (handleId: string): DatastoreKey<'IPAMHandle'> => ({
  kind: 'IPAMHandle',
  handleId,
});

async function runWorker(args: WorkerArgs): Promise<WorkerResult> {
  const ds = await createFileDatastore({ path: args.path, lockTimeoutMs: 60_000 });
  process.stdout.write('ready\n');
  await new Promise<void>((resolve) =>
    createInterface({ input: process.stdin }).once('line', () => resolve()),
  );
  const latenciesMs: number[] = [];
  let conflicts = 0;
  const end = performance.now() + args.durationMs;
  for (let i = 0; performance.now() < end; i++) {
    const key = handleKey(args.keys[i % args.keys.length]!);
    const start = performance.now();
    for (;;) {
      const kv = await ds.get(key);
      try {
        await ds.update({
          ...kv,
          value: { ...kv.value, block: { n: (kv.value.block.n ?? 0) + 1 } },
        });
        break;
      } catch (e) {
        if (!(e instanceof IpamError) || e.code !== 'UpdateConflict') throw e;
        conflicts++;
      }
    }
    latenciesMs.push(performance.now() - start);
  }
  await ds.close();
  return { updates: latenciesMs.length, conflicts, latenciesMs };
}

/** Writes the starting store directly: the counters, plus `blocks` half-allocated /26 blocks. */
async function seedStore(path: string, keys: string[], blocks: number): Promise<void> {
  let s: StoreSnapshot = emptySnapshot('bench');
  const ctx = { newUid: () => 'seed', historyLimit: 100 };
  for (const k of keys) {
    const value = encodeValue('IPAMHandle', { handleId: k, block: { n: 0 }, deleted: false });
    s = mutateSnapshot(s, [{ op: 'create', key: handleKey(k), value }], ctx).snapshot;
  }
  for (let b = 0; b < blocks; b++) {
    const cidr = `10.${b >> 10}.${(b >> 2) & 255}.${(b & 3) * 64}/26`;
    const builder = new BlockBuilder(cidr).affine(`node-${b % 50}`);
    for (let o = 0; o < 32; o++)
      builder.allocate([o], `k8s-pod-network.${b}-${o}`, {
        namespace: 'default',
        pod: `pod-${b}-${o}`,
      });
    const value = encodeValue('IPAMBlock', builder.build());
    s = mutateSnapshot(
      s,
      [{ op: 'create', key: { kind: 'IPAMBlock', cidr }, value }],
      ctx,
    ).snapshot;
  }
  await writeFile(path, serializeStoreDocument(s));
}

function spawnWorker(args: WorkerArgs) {
  const child = spawn(process.execPath, [process.argv[1]!, '--worker', JSON.stringify(args)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout });
  const ready = new Promise<void>((resolve) => lines.once('line', () => resolve()));
  const result = new Promise<WorkerResult>((resolve, reject) => {
    lines.on('line', (line) => {
      if (line.startsWith('{')) resolve(JSON.parse(line) as WorkerResult);
    });
    child.on('exit', (code) => (code ? reject(new Error(`worker exited ${code}`)) : undefined));
  });
  return { child, ready, result };
}

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

interface ScenarioResult {
  readonly row: string;
  readonly perSecond: number;
  readonly p50: number;
  readonly p99: number;
}

async function runScenario(
  dir: string,
  scenario: Scenario,
  durationMs: number,
): Promise<ScenarioResult> {
  const path = join(dir, `${scenario.name.replace(/\W+/g, '-')}.json`);
  const allKeys = [
    ...new Set(Array.from({ length: scenario.processes }, (_, w) => scenario.keysOf(w)).flat()),
  ];
  await seedStore(path, allKeys, scenario.blocks);
  const workers = Array.from({ length: scenario.processes }, (_, w) =>
    spawnWorker({ path, keys: scenario.keysOf(w), durationMs }),
  );
  await Promise.all(workers.map((w) => w.ready));
  for (const w of workers) w.child.stdin.end('go\n');
  const results = await Promise.all(workers.map((w) => w.result));
  const updates = results.reduce((n, r) => n + r.updates, 0);
  const conflicts = results.reduce((n, r) => n + r.conflicts, 0);
  const latencies = results.flatMap((r) => r.latenciesMs).sort((a, b) => a - b);
  const perSecond = Math.round(updates / (durationMs / 1000));
  const ms = (x: number) => x.toFixed(2);
  const p50 = percentile(latencies, 50);
  const p99 = percentile(latencies, 99);
  return {
    row: `| ${scenario.name} | ${scenario.processes} | ${allKeys.length} | ${scenario.blocks} | ${perSecond} | ${conflicts} | ${ms(p50)} | ${ms(p99)} |`,
    perSecond,
    p50,
    p99,
  };
}

async function main(): Promise<void> {
  const durationMs = Number(process.env.BENCH_DURATION_MS ?? 3000);
  const dir = await mkdtemp(join(process.env.BENCH_DIR ?? tmpdir(), 'netledger-bench-'));
  const distinct = Array.from({ length: 64 }, (_, i) => `key-${i}`);
  const scenarios: Scenario[] = [
    { name: 'one key', processes: 1, keysOf: () => ['shared'], blocks: 0 },
    { name: 'distinct keys (64, round robin)', processes: 1, keysOf: () => distinct, blocks: 0 },
    { name: 'one key, shared', processes: 4, keysOf: () => ['shared'], blocks: 0 },
    {
      name: 'distinct keys (one per process)',
      processes: 4,
      keysOf: (w) => [`key-${w}`],
      blocks: 0,
    },
    {
      name: 'one key, store holds 100 /26 blocks',
      processes: 1,
      keysOf: () => ['shared'],
      blocks: 100,
    },
    {
      name: 'one key, store holds 1,000 /26 blocks',
      processes: 1,
      keysOf: () => ['shared'],
      blocks: 1000,
    },
    {
      name: 'one key, shared, 1,000 /26 blocks',
      processes: 4,
      keysOf: () => ['shared'],
      blocks: 1000,
    },
  ];
  const measured: { scenario: Scenario; result: ScenarioResult }[] = [];
  try {
    for (const scenario of scenarios)
      measured.push({ scenario, result: await runScenario(dir, scenario, durationMs) });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  console.log(
    `CAS update throughput (get + update, retried on UpdateConflict), ${durationMs} ms per row`,
  );
  console.log(
    `node ${process.version}, ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, store in ${process.env.BENCH_DIR ?? tmpdir()}\n`,
  );
  console.log(
    '| scenario | processes | counter keys | other objects | updates/s | conflicts | p50 ms | p99 ms |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const m of measured) console.log(m.result.row);
  await writeReport(measured, durationMs);
}

/** Writes the figures where `pnpm bench` (scripts/bench.mjs) collects them. */
async function writeReport(
  measured: { scenario: Scenario; result: ScenarioResult }[],
  durationMs: number,
): Promise<void> {
  const dir = process.env.NETLEDGER_BENCH_DIR;
  if (!dir) return;
  await mkdir(dir, { recursive: true });
  const results = measured.flatMap(({ scenario, result }) => {
    const label = `${scenario.name}, ${scenario.processes} process${scenario.processes > 1 ? 'es' : ''}`;
    return [
      {
        name: `${label}: CAS updates`,
        value: result.perSecond,
        unit: 'updates/s',
        better: 'higher',
      },
      { name: `${label}: p99`, value: result.p99, unit: 'ms', better: 'lower' },
    ];
  });
  const report = {
    title: 'datastore-file: CAS update throughput (get + update, retried on conflict)',
    command: 'pnpm bench --filter=@netledger/datastore-file',
    notes: `${durationMs} ms per scenario; each update is a lock, a read if the file changed, a write of a temp file, fsync, rename and a directory fsync.`,
    results,
  };
  await writeFile(join(dir, 'datastore-file.json'), `${JSON.stringify(report, null, 2)}\n`);
}

if (process.argv[2] === '--worker') {
  const result = await runWorker(JSON.parse(process.argv[3]!) as WorkerArgs);
  process.stdout.write(`${JSON.stringify(result)}\n`);
} else {
  await main();
}
