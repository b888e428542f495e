import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { createIpamClient } from '@netledger/ipam-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClientLedger, HeldByClient } from './ledger.js';
import { hostName, NAMESPACE, seedStore, suiteOpener, verifyStore } from './load-harness.js';
import { reportFigures } from './report-figures.js';
import { startEtcdStore, startKubeStore } from './store-targets.js';
import type { StoreUnderTest } from './store-targets.js';
import { KUBE_CONTROLLERS, requireBins } from './workspace.js';

// The IPAM GC controller (bin/netledger-kube-controllers) on the Kubernetes store and on etcd (pods,
// nodes and its leader lease on the API server either way), SIGKILLed just after it logged its
// first release of a pass, then started again: the pods that still exist keep every address, the
// deleted pods' addresses are all released by the restarted controller, and the store is whole
// (nothing held twice, handles agreeing with their blocks).

const HOSTS = 4;
const LIVE_PER_HOST = 3;
const GONE_PER_HOST = 3;
const MAX_RELEASES_PER_PASS = 4;

/** The API server (with Calico's CRDs: the Kubernetes store), and etcd. */
let kube: Awaited<ReturnType<typeof startKubeStore>>;
let etcd: StoreUnderTest | undefined;
const controllers: ChildProcess[] = [];
beforeAll(async () => {
  requireBins();
  kube = await startKubeStore();
}, 180_000);
afterAll(async () => {
  for (const c of controllers) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await etcd?.stop();
  await kube?.stop();
});

/** Starts the controller on `target`; `onLog` sees each JSON log line's message. */
function startController(
  target: StoreUnderTest,
  onLog: (msg: string) => void,
): {
  child: ChildProcess;
  exited: Promise<void>;
} {
  const kubeconfig = kube.api.kubeconfigPath;
  const child = spawn(
    KUBE_CONTROLLERS,
    [
      '--kubeconfig',
      kubeconfig,
      '--leak-grace-period',
      '2s',
      // A pass releases at most 4: the kill after the first release always leaves most of the
      // leaks to the restarted controller (without the cap, a fast store lets one pass release
      // them all before the kill lands).
      '--max-releases-per-pass',
      String(MAX_RELEASES_PER_PASS),
      '--metrics-listen',
      '127.0.0.1:0',
      // A killed leader's lease runs out quickly, so the restarted one leads soon.
      '--lease-duration',
      '2s',
      '--renew-deadline',
      '1500ms',
      '--retry-period',
      '200ms',
    ],
    {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        ...target.ctlEnv,
        KUBECONFIG: kubeconfig,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  controllers.push(child);
  createInterface({ input: child.stdout }).on('line', (line) => {
    try {
      onLog((JSON.parse(line) as { msg?: string }).msg ?? '');
    } catch {
      onLog(line);
    }
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, exited };
}

describe.each(['kubernetes', 'etcd'] as const)(
  'the GC controller killed mid-pass on %s',
  (store) => {
    it('releases every leak after its restart and nothing live', { timeout: 180_000 }, async () => {
      if (store === 'etcd') etcd = await startEtcdStore();
      const target: StoreUnderTest = store === 'etcd' ? etcd! : kube;
      const hosts = Array.from({ length: HOSTS }, (_, i) => hostName(i));
      await seedStore(target, hosts);
      const live = hosts.flatMap((host) =>
        Array.from({ length: LIVE_PER_HOST }, (_, i) => ({
          host,
          pod: `live-${store}-${host}-${i}`,
        })),
      );
      const gone = hosts.flatMap((host) =>
        Array.from({ length: GONE_PER_HOST }, (_, i) => ({
          host,
          pod: `gone-${store}-${host}-${i}`,
        })),
      );
      // On etcd the Kubernetes nodes are separate objects: without them the GC would take the
      // hosts for deleted nodes. (On the Kubernetes store, seedStore made them.)
      const existing = (await kube.api.kubectl(['get', 'nodes', '-o', 'name'])).stdout;
      const nodes =
        store === 'etcd'
          ? hosts
              .filter((name) => !existing.split('\n').includes(`node/${name}`))
              .map((name) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name } }))
          : [];
      const pods = live.map(({ host, pod }) => ({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: pod, namespace: NAMESPACE },
        spec: { nodeName: host, containers: [{ name: 'c', image: 'registry.invalid/none' }] },
      }));
      const applied = await kube.api.kubectl(['apply', '-f', '-'], {
        input: JSON.stringify({
          apiVersion: 'v1',
          kind: 'List',
          items: [
            { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } },
            ...nodes,
            ...pods,
          ],
        }),
      });
      expect(applied.stderr).toBe('');

      // Addresses for live pods and for pods that do not exist (deleted behind the plugin's back).
      const held = new Map<string, HeldByClient>();
      const ds = await suiteOpener.open(target.store);
      try {
        const ipam = createIpamClient({ datastore: ds });
        for (const { host, pod } of [...live, ...gone]) {
          const handleId = `k8s-pod-network.${pod}`;
          const { v4 } = await ipam.autoAssign({
            num4: 1,
            hostname: host,
            handleId,
            attrs: { node: host, namespace: NAMESPACE, pod },
            intendedUse: 'Workload',
          });
          expect(v4.ips).toHaveLength(1);
          if (pod.startsWith('live-')) {
            held.set(handleId, {
              host,
              ips: v4.ips.map((c) => c.split('/')[0]!),
              containerId: pod,
              via: 'lib',
            });
          }
        }
      } finally {
        await ds.close();
      }

      // First controller: killed right after its first release.
      let releasedBeforeKill = 0;
      let killedAt = 0;
      const first = startController(target, (msg) => {
        if (msg !== 'released leaked address') return;
        releasedBeforeKill++;
        if (killedAt === 0) {
          killedAt = Date.now();
          first.child.kill('SIGKILL');
        }
      });
      await first.exited;
      expect(first.child.signalCode).toBe('SIGKILL');
      expect(releasedBeforeKill).toBeGreaterThan(0);

      // Second controller: runs until every leak is gone from the raw store.
      let releasedAfterRestart = 0;
      const second = startController(target, (msg) => {
        if (msg === 'released leaked address') releasedAfterRestart++;
      });
      const goneHandles = new Set(gone.map((g) => `k8s-pod-network.${g.pod}`));
      const deadline = Date.now() + 90_000;
      for (;;) {
        const raw = await target.readRaw();
        const leftover = raw.blocks.flatMap((b) =>
          (b.attributes ?? []).filter((a) => a.handle_id && goneHandles.has(a.handle_id)),
        );
        if (leftover.length === 0) break;
        if (Date.now() > deadline)
          throw new Error(`leaks left: ${leftover.map((a) => a.handle_id).join(' ')}`);
        await sleep(250);
      }
      const recoveredMs = Date.now() - killedAt;
      second.child.kill('SIGTERM');
      await second.exited;

      const ledger: ClientLedger = {
        held,
        assigned: held.size,
        released: 0,
        failed: [],
        toldTwice: [],
      };
      const verdict = await verifyStore(target, ledger);
      reportFigures('crash/gc-controller', {
        store,
        live: live.length,
        leaked: gone.length,
        releasedBeforeKill,
        releasedAfterRestart,
        recoveredMs,
        duplicates: verdict.audit.duplicates.length,
        lost: verdict.lost.length,
        ctlProblems: verdict.ctlProblems,
      });
      // The restarted controller finished what the killed one left.
      expect(releasedAfterRestart).toBeGreaterThanOrEqual(gone.length - MAX_RELEASES_PER_PASS);
      expect(verdict.audit.duplicates).toEqual([]);
      expect(verdict.audit.blockProblems).toEqual([]);
      expect(verdict.audit.handleMismatches).toEqual([]);
      expect(verdict.lost).toEqual([]);
      expect(verdict.unclaimed).toEqual([]);
      expect(verdict.ctlProblems, verdict.ctlOutput).toBe(0);
    });
  },
);
