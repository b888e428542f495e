// Device daemon benchmark: applying a revision with 4 pools and 250 containers, and the daemon's
// memory. Runs the daemon core with the real file lease store (fsync included), its HTTP API on a
// unix socket, and null host adapters (no root; the kernel side is measured by
// apps/device-daemon/bench/netns-apply.sh). `pnpm --filter @netledger/device-daemon bench`.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDeviceClient } from '../src/device-client.js';
import { createDeviceDaemon } from '../src/device-daemon.js';
import { createFileLeaseStore } from '../src/file-lease-store.js';
import { createFileRevisionStore } from '../src/file-revision-store.js';
import { createHttpApi } from '../src/http-api.js';
import { createMemoryLogger } from '../src/test-fakes.js';
import { benchRevision, NULL_BRIDGES, NULL_NAT } from './fixtures.js';

/** One figure, in the shape scripts/bench.mjs collects from $NETLEDGER_BENCH_DIR. */
interface BenchResult {
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  readonly better: 'higher' | 'lower';
}

const since = (start: number): number => performance.now() - start;
const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;

function writeBenchResults(report: {
  title: string;
  command: string;
  notes: string;
  results: BenchResult[];
}): void {
  const dir = process.env.NETLEDGER_BENCH_DIR ?? join(process.cwd(), 'bench-results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'device-daemon.json'), `${JSON.stringify(report, null, 2)}\n`);
  console.log(report.title);
  for (const r of report.results) console.log(`  ${r.name}: ${r.value.toFixed(2)} ${r.unit}`);
}

const tmp = mkdtempSync(join(tmpdir(), 'nl-bench-'));
const files = benchRevision(250);
const names = files.containers.map((c) => c.name);
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
const mib = (n: number) => n / 1024 / 1024;
let seq = 0;

function daemon() {
  const logger = createMemoryLogger();
  const dir = join(tmp, `data-${seq++}`);
  const d = createDeviceDaemon({
    store: createFileLeaseStore({ dir }),
    revisions: createFileRevisionStore({ dir }),
    bridges: NULL_BRIDGES,
    nat: NULL_NAT,
    forwarding: { enable: async () => undefined },
    logger,
    clock: { now: () => Date.now() },
  });
  return { d, logger };
}

async function samples(n: number, fn: () => Promise<void>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    out.push(since(t));
  }
  return out.sort((a, b) => a - b);
}

// Memory first, in a fresh process: the daemon serving its API, holding 250 leases.
gc();
const baseline = process.memoryUsage();
const { d: served, logger } = daemon();
await served.init();
const server = createHttpApi({
  daemon: served,
  loadRevision: async () => files,
  defaultStateDir: 'bench',
  logger,
});
const socketPath = join(tmp, 'api.sock');
await new Promise<void>((resolve) => server.listen(socketPath, resolve));
const client = createDeviceClient({ socketPath });
let t = performance.now();
await client.apply();
const applyHttp = since(t);
t = performance.now();
for (const n of names) await client.start(n);
const startsHttp = since(t);
logger.lines.length = 0;
gc();
const loaded = process.memoryUsage();
await new Promise((resolve) => server.close(resolve));

const apply = await samples(30, async () => {
  const { d } = daemon();
  await d.init();
  await d.apply(files);
});
const applyAndStart = await samples(5, async () => {
  const { d } = daemon();
  await d.init();
  await d.apply(files);
  for (const n of names) await d.start(n);
});
const { d: steady } = daemon();
await steady.init();
await steady.apply(files);
for (const n of names) await steady.start(n);
const reapply = await samples(50, async () => {
  await steady.apply(files);
});
rmSync(tmp, { recursive: true, force: true });

const ms = (name: string, value: number): BenchResult => ({
  name,
  value,
  unit: 'ms',
  better: 'lower',
});
writeBenchResults({
  title: 'Device daemon: apply a revision with 4 pools and 250 containers',
  command: 'pnpm --filter @netledger/device-daemon bench',
  notes:
    'Daemon core with the real file stores (leases: temp file, fsync, rename, fsync of the directory on every change; the last good revision: the same, once per apply that changes it) and null host adapters; memory measured after GC in a fresh process with the HTTP API on a unix socket and 250 leases held. Real bridges and nft: apps/device-daemon/bench/netns-apply.sh (root).',
  results: [
    ms('apply revision, fresh daemon, p50 (30 runs)', percentile(apply, 50)),
    ms('apply revision, fresh daemon, max (30 runs)', apply[apply.length - 1] ?? NaN),
    ms('re-apply same revision with 250 leases, p50 (50 runs)', percentile(reapply, 50)),
    ms('apply + start 250 containers, p50 (5 runs)', percentile(applyAndStart, 50)),
    ms('apply over the HTTP API', applyHttp),
    ms('250 starts over the HTTP API', startsHttp),
    { name: 'daemon RSS with 250 leases', value: mib(loaded.rss), unit: 'MiB', better: 'lower' },
    {
      name: 'process RSS before the daemon',
      value: mib(baseline.rss),
      unit: 'MiB',
      better: 'lower',
    },
    {
      name: 'heap used with 250 leases',
      value: mib(loaded.heapUsed),
      unit: 'MiB',
      better: 'lower',
    },
  ],
});
