import { EventEmitter } from 'node:events';
import type { VmLookup } from '@netledger/accounting';
import type { KVPair } from '@netledger/ipam-core';
import { GC_STORE_KINDS, applyStoreChange, buildGcState } from './apply-store-change.js';
import type { StoreChange } from '../manager/store-reflector.js';
import type { Controller, ControllerContext, ControllerStatus } from '../manager/controller.js';
import type { LiveLookups } from './pass/gc-pass-context.js';
import type { GcPassReport } from './pass/gc-pass.js';
import { runGcPass } from './pass/gc-pass.js';
import type { IpamGcSettings } from './gc-settings.js';
import { GcState } from './gc-state.js';
import { createIpamGcMetrics } from './ipam-gc-metrics.js';
import type { IpamGcMetrics } from './ipam-gc-metrics.js';
import { computeIpamMetrics } from './ipam-metrics-model.js';
import { createItemBackoff } from '../manager/item-backoff.js';
import { isNotFound } from '../kube/kube-client.js';
import { kubevirtLookup, startKubevirtCaches } from '../kube/kubevirt-lookup.js';
import type { Logger } from '../logger.js';
import { errorText, withLogFields } from '../logger.js';
import type { SlimInformer } from '../kube/slim-informer.js';
import type { SlimNode, SlimPod } from '../kube/slim-pod.js';
import { slimPod } from '../kube/slim-pod.js';
import { describeState, findStateProblems } from './state-consistency.js';
import type { StoreReflector } from '../manager/store-reflector.js';
import { startStoreReflector } from '../manager/store-reflector.js';

/** Options of {@link createIpamGcController}. */
export interface IpamGcControllerOptions {
  readonly settings: IpamGcSettings;
  /** Delete a cleaned-up node's Calico Node resource (stores where it is not the Kubernetes node). */
  readonly deleteCalicoNodes?: boolean;
  readonly now?: () => number;
  /** Cross-check every map after each pass and log (and count) any disagreement. */
  readonly checkConsistency?: boolean;
  /** Decorates the live lookups of the final re-validation (tests hook in between scan and release). */
  readonly wrapLiveLookups?: (live: LiveLookups) => LiveLookups;
  /** A loop that has not finished a pass or an idle wait for this long is unhealthy (default 5 min). */
  readonly stuckAfterMs?: number;
}

/** The IPAM GC controller, with what tests and the bench look at. */
export interface IpamGcController extends Controller {
  /** `pass` (a {@link GcPassReport}) after every pass; `problems` (string[]) if a check fails. */
  readonly events: EventEmitter;
  readonly state: GcState;
  /** Passes completed. */
  passes(): number;
  /**
   * Lists the store now and compares a state built from it with the live one (leak timers
   * aside); resolves with the differences as text ('' when equal) once the loop is idle.
   */
  compareWithStore(): Promise<string>;
}

/**
 * The IPAM garbage collector as a controller (Calico's IPAM controller in kube-controllers): one
 * event loop fed by the datastore's watch (blocks, pools, reservations, Calico nodes, handles,
 * IPAM config, cluster information) and the pod and node informers. Changes are applied between
 * passes, never during one; a pass runs at most once per batch window after a change, at the
 * next time-based deadline (a grace period ending, a cooldown, a retry), and as a full scan every
 * `fullScanIntervalMs`. Only the leader writes; a follower judges and serves metrics.
 */
export function createIpamGcController(options: IpamGcControllerOptions): IpamGcController {
  const now = options.now ?? Date.now;
  const settings = options.settings;
  const events = new EventEmitter();
  const state = new GcState();
  const backoff = createItemBackoff({
    baseMs: settings.backoffBaseMs,
    maxMs: settings.backoffMaxMs,
  });
  let ctx: ControllerContext | undefined;
  let log: Logger | undefined;
  let metrics: IpamGcMetrics | undefined;
  let reflector: StoreReflector | undefined;
  let pods: SlimInformer<SlimPod> | undefined;
  let nodes: SlimInformer<SlimNode> | undefined;
  let vm: (namespace: string, name: string) => VmLookup = kubevirtLookup(undefined);
  let pending: StoreChange[] = [];
  let synced = false;
  let stopped = false;
  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let timerAt = Infinity;
  let lastPassEnd = 0;
  let lastFullScan = 0;
  let lastAlive = now();
  let passCount = 0;
  let lastError: string | undefined;

  const applyPending = (): void => {
    if (pending.length === 0) return;
    const batch = pending;
    pending = [];
    for (const c of batch) applyStoreChange(state, c);
  };

  /** Runs a pass no earlier than `atMs` (and not within the batch window of the last one). */
  const schedule = (atMs: number): void => {
    if (stopped) return;
    const at = Math.max(atMs, lastPassEnd + settings.batchWindowMs);
    if (at >= timerAt) return;
    clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(
      () => {
        timerAt = Infinity;
        void loop();
      },
      Math.max(0, at - now()),
    );
  };
  const kick = (): void => schedule(now());

  async function loop(): Promise<void> {
    if (running || stopped || !ctx) {
      if (running) void running.then(kick);
      return;
    }
    running = (async () => {
      lastAlive = now();
      applyPending();
      if (!synced) return;
      if (now() - lastFullScan >= settings.fullScanIntervalMs) {
        state.fullScanRequired = true;
        lastFullScan = now();
      }
      const started = performance.now();
      let report: GcPassReport | undefined;
      try {
        report = await runGcPass({
          state,
          settings,
          backoff,
          nowMs: now(),
          ports: ports(ctx),
          observer: {
            reclaimed: (t, pool) => metrics?.reclaimed(pool, t.node),
            nodeCleaned: (node) => metrics?.forgetNode(node),
            error: (op) => metrics?.error(op),
          },
        });
        lastError = undefined;
        metrics?.pass((performance.now() - started) / 1000, report.errors > 0 ? 'error' : 'ok');
      } catch (e) {
        lastError = errorText(e);
        metrics?.pass((performance.now() - started) / 1000, 'error');
        log?.log('error', 'GC pass failed', { error: lastError });
        state.fullScanRequired = true;
        schedule(now() + settings.backoffBaseMs);
      }
      passCount++;
      backoff.prune((item) => {
        const at = item.indexOf(':');
        const [kind, id] = [item.slice(0, at), item.slice(at + 1)];
        if (kind === 'node') return state.blocksByNode.has(id) || state.allocationsByNode.has(id);
        if (kind === 'handle') return state.handles.has(id);
        return state.blocks.has(id);
      });
      lastPassEnd = now();
      lastAlive = lastPassEnd;
      if (options.checkConsistency) {
        const problems = findStateProblems(state);
        if (problems.length > 0) {
          log?.log('error', 'GC state inconsistent', { problems: problems.join('; ') });
          events.emit('problems', problems);
        }
      }
      if (report) {
        const { nextDeadlineMs, ...counts } = report;
        log?.log('debug', 'GC pass done', {
          ...counts,
          ms: Math.round(performance.now() - started),
        });
        if (nextDeadlineMs !== undefined) schedule(nextDeadlineMs);
        events.emit('pass', report);
      }
      schedule(lastFullScan + settings.fullScanIntervalMs);
    })();
    try {
      await running;
    } finally {
      running = undefined;
    }
    // Before the caches are synced nothing runs; the sync itself kicks the first pass.
    if (synced && (pending.length > 0 || state.dirtyNodes.size > 0 || state.fullScanRequired))
      kick();
  }

  function ports(c: ControllerContext) {
    const live: LiveLookups = {
      pod: async (namespace, name) => {
        try {
          return slimPod(await c.kube.core.readNamespacedPod({ name, namespace }));
        } catch (e) {
          if (isNotFound(e)) return undefined;
          throw e;
        }
      },
      nodeExists: async (name) => {
        try {
          await c.kube.core.readNode({ name });
          return true;
        } catch (e) {
          if (isNotFound(e)) return false;
          throw e;
        }
      },
    };
    return {
      ipam: c.ipam,
      datastore: c.datastore,
      cache: {
        kubernetesNodeExists: (name: string) => nodes?.get(name) !== undefined,
        pod: (namespace: string, name: string) => pods?.get(name, namespace),
        vm: (namespace: string, name: string) => vm(namespace, name),
      },
      live: options.wrapLiveLookups ? options.wrapLiveLookups(live) : live,
      logger: log!,
      isLeader: () => c.leadership.isLeader(),
      deleteCalicoNodes: options.deleteCalicoNodes ?? false,
    };
  }

  const markPodNode = (p: SlimPod): void => {
    if (p.nodeName !== '') state.dirtyNodes.add(p.nodeName);
    // Calico nodes mapped to this Kubernetes node.
    for (const [calico, k8s] of state.calicoNodes)
      if (k8s === p.nodeName) state.dirtyNodes.add(calico);
    kick();
  };
  const fullScan = (): void => {
    state.fullScanRequired = true;
    kick();
  };

  return {
    name: 'ipam-gc',
    events,
    state,
    passes: () => passCount,
    async start(c) {
      ctx = c;
      log = withLogFields(c.logger, { controller: 'ipam-gc' });
      metrics = createIpamGcMetrics(c.registry);
      metrics.setLeader(c.leadership.isLeader());
      c.leadership.onChange((leading) => {
        metrics?.setLeader(leading);
        // A new leader judges everything afresh; a former one has nothing to finish.
        fullScan();
      });
      pods = c.informers.pods();
      nodes = c.informers.nodes();
      pods.on('delete', markPodNode);
      pods.on('update', markPodNode);
      pods.on('add', markPodNode);
      nodes.on('delete', fullScan);
      nodes.on('add', fullScan);
      const kubevirt = await startKubevirtCaches(c.kube, c.informers, log);
      vm = kubevirtLookup(kubevirt);
      if (kubevirt) {
        kubevirt.vms.on('delete', fullScan);
        kubevirt.vmis.on('delete', fullScan);
      }
      reflector = startStoreReflector({
        datastore: c.datastore,
        kinds: GC_STORE_KINDS,
        logger: log,
        onChanges: (changes) => {
          pending.push(...changes);
          kick();
        },
      });
      void Promise.all([reflector.synced, pods.synced, nodes.synced]).then(() => {
        if (stopped) return;
        synced = true;
        log?.log('info', 'caches synced: GC running', {
          leakGracePeriodMs: settings.leakGracePeriodMs ?? 'unset',
          maxReleasesPerPass: settings.maxReleasesPerPass,
        });
        fullScan();
      });
    },
    readiness(): ControllerStatus {
      if (synced) return { ok: true };
      const waiting = [
        reflector?.isSynced() ? undefined : 'datastore',
        pods?.isSynced() ? undefined : 'pods',
        nodes?.isSynced() ? undefined : 'nodes',
      ].filter(Boolean);
      return { ok: false, detail: `waiting for ${waiting.join(', ')} to sync` };
    },
    health(): ControllerStatus {
      const stuck = options.stuckAfterMs ?? 5 * 60_000;
      // Idle with nothing scheduled is healthy; a pass running for too long is not.
      if (running && now() - lastAlive > stuck)
        return { ok: false, detail: `a GC pass has run for over ${stuck} ms` };
      return lastError ? { ok: true, detail: `last pass failed: ${lastError}` } : { ok: true };
    },
    beforeScrape() {
      if (!metrics) return;
      metrics.setLeader(ctx?.leadership.isLeader() ?? false);
      const seed = new Set<string>(state.calicoNodes.keys());
      for (const n of nodes?.list() ?? []) seed.add(n.metadata.name);
      metrics.update(computeIpamMetrics(state, { seedNodes: seed }));
    },
    async compareWithStore() {
      if (!ctx) throw new Error('not started');
      const idle = async (): Promise<void> => {
        while (running) await running;
        applyPending();
      };
      await idle();
      const items: KVPair[] = [];
      for (const kind of GC_STORE_KINDS) items.push(...(await ctx.datastore.list({ kind })).items);
      await idle();
      const live = JSON.stringify(describeState(state));
      const fresh = JSON.stringify(describeState(buildGcState(items)));
      return live === fresh ? '' : `live:  ${live}\nstore: ${fresh}`;
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
      await reflector?.close();
    },
  };
}
