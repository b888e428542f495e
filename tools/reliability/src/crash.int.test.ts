import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleWorker } from './bundle-worker.js';
import type { WorkerBundle } from './bundle-worker.js';
import { crashPointFor } from './crash-points.js';
import { foldEvents } from './ledger.js';
import {
  cniContainerIds,
  hostName,
  hostPlan,
  NAMESPACE,
  gcAndVerify,
  seedStore,
} from './load-harness.js';
import { cniGc, runPlugin } from './plugin-run.js';
import { reportFigures } from './report-figures.js';
import { startHost } from './run-host.js';
import { reliabilityScale } from './scale.js';
import { startEtcdStore, startFileStore, startKubeStore } from './store-targets.js';
import type { StoreUnderTest } from './store-targets.js';
import { seededRandom } from './worker/seeded-random.js';
import type { HeldHandle, WorkerEvent, WorkerPlan } from './worker/worker-plan.js';
import { requireBins } from './workspace.js';

// kill -9 at chosen writes of assign, release, block claim and affinity release (CRASH_POINTS),
// in host processes using the library, and at random moments of the plugin's ADD. Each killed host
// restarts, its runtime retrying what it would retry (a DEL; the cleanup DEL of a failed ADD on even
// rounds; nothing on odd rounds, as when the runtime died too), then one CNI GC pass per host.
// After that the raw store holds exactly the addresses the hosts were told they hold: nothing held
// twice, nothing lost, and nothing else (what the crashes left behind, the GC reclaimed).

const HOSTS = 4;
const SCALE = reliabilityScale();
const ROUNDS = 3 * SCALE;
const OPS = 6;

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

/** The call in flight when a host died: its last `started` event with no answer after it. */
function inFlight(
  events: readonly WorkerEvent[],
): Extract<WorkerEvent, { ev: 'started' }> | undefined {
  const last = events.at(-1);
  return last?.ev === 'started' ? last : undefined;
}

describe.each(STORES)('kill -9 on the %s store', (name, start) => {
  let target: StoreUnderTest;
  beforeAll(async () => {
    target = await start();
  }, 180_000);
  afterAll(async () => {
    await target?.stop();
  });

  it(
    'holds nothing twice and loses nothing after restart and one GC pass',
    { timeout: 300_000 },
    async () => {
      const random = seededRandom(20);
      const hosts = Array.from({ length: HOSTS }, (_, i) => hostName(i));
      await seedStore(target, hosts);
      const planFor = (host: string, o: Partial<WorkerPlan> = {}): WorkerPlan =>
        hostPlan(target, { host, ops: OPS, seed: 0, cniEvery: 3, ...o });
      // Every container ID the plugin may be asked about needs its pod on Kubernetes.
      const pods = hosts.flatMap((host) => [
        ...cniContainerIds(planFor(host, { ops: (ROUNDS + 1) * 100 })),
        ...Array.from({ length: ROUNDS }, (_, r) => `${host}-k${r}`),
      ]);
      await target.preparePods(NAMESPACE, pods);

      const events = new Map<string, WorkerEvent[]>(hosts.map((h) => [h, []]));
      const heldBy = (host: string): HeldHandle[] =>
        [...foldEvents(events.get(host)!).held.values()].map(({ containerId, via }) => ({
          containerId,
          via,
        }));
      const crashes: string[] = [];
      let pluginKills = 0;
      let leftForGc = 0;

      for (let r = 0; r < ROUNDS; r++) {
        await Promise.all(
          hosts.map(async (host, h) => {
            const crash = crashPointFor({ round: r, host: h, hosts: HOSTS }, random);
            // A node is drained after its GC ran: what earlier kills left on its blocks (an ADD
            // killed after its block write) would make the affinity release refuse, before any
            // write this round means to interrupt.
            if (crash.during === 'drain') {
              await cniGc(
                planFor(host),
                heldBy(host).map((held) => held.containerId),
              );
            }
            const first = startHost(
              bundle.file,
              planFor(host, {
                firstOp: r * 100,
                seed: r * 10 + h,
                held: heldBy(host),
                crash,
                // The library's own writes are the crash points; the plugin is killed below.
                cniEvery: 0,
                releaseChance: crash.during === 'release' ? 0.8 : 0.45,
                drainAtEnd: crash.during === 'drain',
              }),
            );
            // Meanwhile a plugin ADD of this host is killed at a random moment.
            const killed = runPlugin(
              planFor(host),
              { command: 'ADD', containerId: `${host}-k${r}` },
              {
                killAfterMs: 30 + Math.floor(random() * 220),
              },
            );
            const run = await first.finished;
            const plugin = await killed;
            if (plugin.signal === 'SIGKILL') pluginKills++;
            else if (plugin.status !== 0)
              throw new Error(`plugin ADD: ${plugin.stdout} ${plugin.stderr}`);
            events.get(host)!.push(...run.events);
            if (run.signal !== 'SIGKILL') {
              expect(run.code, run.stderr).toBe(0);
              return;
            }
            crashes.push(`${crash.during}/${crash.kind} ${crash.op} (${crash.when})`);
            const lost = inFlight(run.events);
            const redo: HeldHandle[] = [];
            let drain = false;
            // Half the hosts' runtimes clean up a failed ADD with a DEL; the others' died too.
            const runtimeCleansUp = Math.floor(h / 2) % 2 !== r % 2;
            if (lost?.action === 'release' || (lost?.action === 'assign' && runtimeCleansUp)) {
              redo.push({ containerId: lost.containerId, via: lost.via });
            } else if (lost?.action === 'assign') {
              leftForGc++;
            } else if (lost?.action === 'drain') {
              drain = true;
            }
            const restart = await startHost(
              bundle.file,
              planFor(host, {
                firstOp: r * 100 + 50,
                seed: r * 10 + h + 5,
                held: heldBy(host),
                redo,
                ops: drain ? 0 : 3,
                drainAtEnd: drain,
              }),
            ).finished;
            expect({ code: restart.code, stderr: restart.stderr }).toEqual({ code: 0, stderr: '' });
            events.get(host)!.push(...restart.events);
          }),
        );
      }

      const ledger = foldEvents([...events.values()].flat());
      const before = await target.readRaw();
      const { afterGc, dangling, verdict } = await gcAndVerify(
        target,
        ledger,
        hosts.map((host) => planFor(host)),
      );
      // A handle counted by an ADD killed before its block write names no allocation, so no GC
      // pass (which walks allocations) sees it; `ipam check` reports it, and calicoctl's clean-up
      // releases it.
      for (const m of dangling)
        expect(m).toMatch(/the handle says \d+ in \S+, the block holds none$/);
      reportFigures(`crash/${name}`, {
        rounds: ROUNDS,
        workerKills: crashes.length,
        pluginKills,
        leftForGc,
        operations: ledger.assigned + ledger.released + ledger.failed.length,
        allocationsBeforeGc: before.blocks.reduce(
          (n, b) => n + b.allocations.filter((a) => a !== null).length,
          0,
        ),
        heldAtEnd: verdict.audit.held.size,
        duplicates: verdict.audit.duplicates.length,
        lost: verdict.lost.length,
        danglingHandlesAfterGc: dangling.length,
        ctlProblemsAfterGc: afterGc.ctlProblems,
        ctlProblems: verdict.ctlProblems,
        pointsHit: new Set(crashes.map((c) => c.replace(/ \(.*\)$/, ''))).size,
        crashes,
      });

      expect(crashes.length).toBeGreaterThan(0);
      expect(verdict.audit.duplicates).toEqual([]);
      expect(ledger.toldTwice).toEqual([]);
      expect(verdict.audit.blockProblems).toEqual([]);
      expect(verdict.lost).toEqual([]);
      expect(verdict.unclaimed).toEqual([]);
      expect(verdict.audit.handleMismatches).toEqual([]);
      expect(verdict.ctlProblems, verdict.ctlOutput).toBe(0);
    },
  );
});
