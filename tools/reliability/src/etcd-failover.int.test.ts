import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleWorker } from './bundle-worker.js';
import type { WorkerBundle } from './bundle-worker.js';
import { failureBound } from './failure-bound.js';
import { foldEvents } from './ledger.js';
import { gcAndVerify, hostName, hostPlan, seedStore } from './load-harness.js';
import { reportFigures } from './report-figures.js';
import { startHost } from './run-host.js';
import { reliabilityScale } from './scale.js';
import { startEtcdStore } from './store-targets.js';
import type { StoreUnderTest } from './store-targets.js';
import type { EtcdFixture } from '@netledger/testkit';
import type { WorkerEvent } from './worker/worker-plan.js';
import { requireBins } from './workspace.js';

// 16 host processes on a 3-member etcd cluster (each with its own connection) through two faults:
// the leader killed (two members keep quorum: one election), then a second member stopped (quorum
// lost until both come back). packages/datastore-etcd's failover tests cover one leader kill under
// in-process writers; this one adds the loss of quorum, separate processes, and a bound on the
// number of failed calls.
//
// The bound: a host makes one call at a time and, after a failed call, waits BACKOFF_MS before the
// next (as a runtime retries). So in a window of D ms a host can fail at most ceil(D / BACKOFF_MS)
// + 1 calls, whatever etcd does; a window opens when a fault is injected and closes when service is
// back (a leader known, the members healthy) plus REQUEST_TIMEOUT_MS (a call sent just before the
// close may still time out). Outside the windows, no call may fail.

const HOSTS = 16;
const SCALE = reliabilityScale();
const OPS = 40 * SCALE;
const BACKOFF_MS = 200;
const REQUEST_TIMEOUT_MS = 1000;
const DIAL_TIMEOUT_MS = 1000;

let bundle: WorkerBundle;
let target: StoreUnderTest & { readonly etcd: EtcdFixture };
beforeAll(async () => {
  requireBins();
  bundle = await bundleWorker();
  target = await startEtcdStore(3);
}, 120_000);
afterAll(async () => {
  await target?.stop();
  await bundle?.remove();
});

/** Resolves once `predicate` holds for an event, checking every event as it arrives. */
function waitForEvents(
  subscribe: (f: (e: WorkerEvent) => void) => void,
  predicate: () => boolean,
): Promise<void> {
  return new Promise((resolve) => {
    if (predicate()) return resolve();
    subscribe(() => {
      if (predicate()) resolve();
    });
  });
}

describe('16 hosts on a 3-member etcd cluster losing its leader, then quorum', () => {
  it('fail clearly and boundedly, then serve fully', { timeout: 300_000 }, async () => {
    const { etcd } = target;
    const hosts = Array.from({ length: HOSTS }, (_, i) => hostName(i));
    await seedStore(target, hosts);
    const plans = hosts.map((host, i) =>
      hostPlan(target, {
        host,
        ops: OPS,
        seed: 300 + i,
        cniEvery: 0,
        backoffMs: BACKOFF_MS,
        etcd: { dialTimeoutMs: DIAL_TIMEOUT_MS, requestTimeoutMs: REQUEST_TIMEOUT_MS },
      }),
    );
    const listeners: ((e: WorkerEvent) => void)[] = [];
    const all: WorkerEvent[] = [];
    const running = plans.map((p) =>
      startHost(bundle.file, p, (e) => {
        all.push(e);
        for (const l of listeners) l(e);
      }),
    );
    const subscribe = (f: (e: WorkerEvent) => void): void => {
      listeners.push(f);
    };
    const done = new Set<string>();
    subscribe((e) => {
      if (e.ev === 'done') done.add(e.host);
    });
    const successes = (): number =>
      all.filter((e) => e.ev === 'assigned' || e.ev === 'released').length;

    // Fault 1: the leader, once a sixth of the calls succeeded.
    await waitForEvents(subscribe, () => successes() >= (HOSTS * OPS) / 6);
    const leader = await etcd.leaderIndex();
    const killedAt = Date.now();
    await etcd.kill(leader);
    const newLeader = await etcd.leaderIndex();
    const electedAt = Date.now();
    expect(newLeader).not.toBe(leader);

    // Fault 2: a second member, once service is back (more calls succeed); quorum is then lost
    // until every host still running has seen a call fail.
    const before = successes();
    await waitForEvents(subscribe, () => successes() >= before + HOSTS * 2);
    const second = [0, 1, 2].find((i) => i !== leader && i !== newLeader)!;
    const lostAt = Date.now();
    await etcd.kill(second);
    await waitForEvents(subscribe, () =>
      hosts.every(
        (h) => done.has(h) || all.some((e) => e.ev === 'failed' && e.host === h && e.t > lostAt),
      ),
    );
    const restoreAt = Date.now();
    await Promise.all([etcd.restart(second), etcd.restart(leader)]);
    await etcd.leaderIndex();
    const restoredAt = Date.now();

    const runs = await Promise.all(running.map((r) => r.finished));
    for (const r of runs)
      expect({ host: r.host, code: r.code, stderr: r.stderr }).toMatchObject({ code: 0 });

    const ledger = foldEvents(runs.flatMap((r) => r.events));
    const windows = [
      { from: killedAt, to: electedAt + REQUEST_TIMEOUT_MS },
      { from: lostAt, to: restoredAt + REQUEST_TIMEOUT_MS },
    ];
    const bound = failureBound({ hosts: HOSTS, backoffMs: BACKOFF_MS, windows });
    const inWindow = (t: number): boolean => windows.some((w) => t >= w.from && t <= w.to);
    const outside = ledger.failed.filter((f) => !inWindow(f.t));
    const duringQuorumLoss = ledger.failed.filter((f) => f.t >= lostAt && f.t <= restoreAt);
    const afterRestore = runs
      .flatMap((r) => r.events)
      .filter((e) => (e.ev === 'assigned' || e.ev === 'released') && e.t > restoredAt).length;
    const { afterGc, dangling, verdict } = await gcAndVerify(target, ledger, plans);
    reportFigures('failover/etcd', {
      hosts: HOSTS,
      operations: ledger.assigned + ledger.released + ledger.failed.length,
      failed: ledger.failed.length,
      bound,
      failedDuringQuorumLoss: duringQuorumLoss.length,
      codes: [...new Set(ledger.failed.map((f) => f.code))],
      electionMs: electedAt - killedAt,
      quorumLostMs: restoreAt - lostAt,
      restartMs: restoredAt - restoreAt,
      succeededAfterRestore: afterRestore,
      unclaimedAfterLoad: afterGc.unclaimed.length,
      danglingHandlesAfterGc: dangling.length,
      duplicates: verdict.audit.duplicates.length,
      lost: verdict.lost.length,
      ctlProblems: verdict.ctlProblems,
    });

    // Clear errors: every failure is a typed Unavailable naming etcd.
    for (const f of ledger.failed) {
      expect({ code: f.code, message: f.message }).toMatchObject({
        code: 'Unavailable',
        message: expect.stringMatching(/etcd/),
      });
    }
    expect(duringQuorumLoss.length).toBeGreaterThan(0);
    expect(ledger.failed.length).toBeLessThanOrEqual(bound);
    expect(
      outside.map((f) => `${f.host} ${f.action} at +${f.t - killedAt} ms: ${f.message}`),
    ).toEqual([]);
    expect(afterRestore).toBeGreaterThan(0);
    expect(verdict.audit.duplicates).toEqual([]);
    expect(ledger.toldTwice).toEqual([]);
    expect(verdict.audit.blockProblems).toEqual([]);
    expect(verdict.lost).toEqual([]);
    expect(verdict.unclaimed).toEqual([]);
    expect(verdict.audit.handleMismatches).toEqual([]);
    expect(verdict.ctlProblems, verdict.ctlOutput).toBe(0);
  });
});
