import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleWorker } from './bundle-worker.js';
import type { WorkerBundle } from './bundle-worker.js';
import { foldEvents } from './ledger.js';
import {
  cniContainerIds,
  hostName,
  hostPlan,
  NAMESPACE,
  seedStore,
  verifyStore,
} from './load-harness.js';
import { reportFigures } from './report-figures.js';
import { runHosts } from './run-host.js';
import { reliabilityScale } from './scale.js';
import { startEtcdStore, startFileStore, startKubeStore } from './store-targets.js';
import type { StoreUnderTest } from './store-targets.js';
import { requireBins } from './workspace.js';

// 16 processes act as 16 hosts on one store, each assigning and releasing through the CNI plugin
// executable (every 4th operation) and through ipam-core's client. Then the raw store is audited
// by brute force and `netledgerctl ipam check` is run: no address held twice, every handle's counts
// agree with its blocks, and the store holds exactly what the hosts were told they hold.

const HOSTS = 16;
const SCALE = reliabilityScale();
const OPS_PER_HOST = 12 * SCALE;
const CNI_EVERY = 4;

let bundle: WorkerBundle;
beforeAll(async () => {
  requireBins();
  bundle = await bundleWorker();
});
afterAll(async () => {
  await bundle?.remove();
});

const STORES: [string, () => Promise<StoreUnderTest>][] = [
  ['file', startFileStore],
  ['etcd', () => startEtcdStore()],
  ['kubernetes', startKubeStore],
];

describe.each(STORES)('16 host processes on the %s store', (name, start) => {
  let target: StoreUnderTest;
  beforeAll(async () => {
    target = await start();
  }, 180_000);
  afterAll(async () => {
    await target?.stop();
  });

  it('hold no address twice and agree with the store', { timeout: 300_000 }, async () => {
    const hosts = Array.from({ length: HOSTS }, (_, i) => hostName(i));
    await seedStore(target, hosts);
    const plans = hosts.map((host, i) =>
      hostPlan(target, { host, ops: OPS_PER_HOST, seed: 1000 + i, cniEvery: CNI_EVERY }),
    );
    await target.preparePods(NAMESPACE, plans.flatMap(cniContainerIds));

    const started = Date.now();
    const runs = await runHosts(bundle.file, plans);
    const elapsedMs = Date.now() - started;
    for (const r of runs) {
      expect({ host: r.host, code: r.code, stderr: r.stderr }).toEqual({
        host: r.host,
        code: 0,
        stderr: '',
      });
      expect(r.events.at(-1)?.ev).toBe('done');
    }
    const ledger = foldEvents(runs.flatMap((r) => r.events));
    const verdict = await verifyStore(target, ledger);
    const viaCni = runs
      .flatMap((r) => r.events)
      .filter((e) => e.ev !== 'started' && 'via' in e && e.via === 'cni').length;
    reportFigures(`load/${name}`, {
      hosts: HOSTS,
      operations: ledger.assigned + ledger.released + ledger.failed.length,
      viaCni,
      assigned: ledger.assigned,
      released: ledger.released,
      failed: ledger.failed.length,
      heldAtEnd: ledger.held.size,
      duplicates: verdict.audit.duplicates.length,
      lost: verdict.lost.length,
      ctlProblems: verdict.ctlProblems,
      elapsedMs,
    });

    expect(
      ledger.failed.map((f) => `${f.handle} ${f.action} via ${f.via}: ${f.code} ${f.message}`),
    ).toEqual([]);
    expect(ledger.assigned + ledger.released).toBe(HOSTS * OPS_PER_HOST);
    expect(viaCni).toBeGreaterThan(0);
    expect(verdict.audit.duplicates).toEqual([]);
    expect(ledger.toldTwice).toEqual([]);
    expect(verdict.audit.blockProblems).toEqual([]);
    expect(verdict.audit.handleMismatches).toEqual([]);
    expect(verdict.lost).toEqual([]);
    expect(verdict.unclaimed).toEqual([]);
    expect(verdict.audit.held.size).toBe(
      [...ledger.held.values()].reduce((n, h) => n + h.ips.length, 0),
    );
    expect(verdict.ctlProblems, verdict.ctlOutput).toBe(0);
  });
});
