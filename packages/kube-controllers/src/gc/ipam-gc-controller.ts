import { EventEmitter } from 'node:events';
import type { VmLookup } from '@netledger/accounting';
import type { KVPair } from '@netledger/ipam-core';
import { GC_STORE_KINDS, applyStoreChange, buildGcState } from './apply-store-change.js';
import type { StoreChange } from '../manager/store-reflector.js';
import type { Controller, ControllerContext, ControllerStatus } from '../manager/controller.js';
import type { GcPorts, LiveLookups } from './pass/gc-pass-context.js';
import type { GcPassReport } from './pass/gc-pass.js';
import { runGcPass } from './pass/gc-pass.js';
import type { IpamGcSettings } from './gc-settings.js';
import { GcState } from './gc-state.js';
import { createIpamGcMetrics } from './ipam-gc-metrics.js';
import type { IpamGcMetrics } from './ipam-gc-metrics.js';
import { computeIpamMetrics } from './ipam-metrics-model.js';
import { createItemBackoff } from '../manager/item-backoff.js';
import type { ItemBackoff } from '../manager/item-backoff.js';
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
  return new IpamGcLoop(options);
}

/** The controller's event loop and what it keeps between passes. */
class IpamGcLoop implements IpamGcController {
  readonly name = 'ipam-gc';
  readonly events = new EventEmitter();
  readonly state = new GcState();
  private readonly now: () => number;
  private readonly settings: IpamGcSettings;
  private readonly backoff: ItemBackoff;
  private ctx: ControllerContext | undefined;
  private log: Logger | undefined;
  private metrics: IpamGcMetrics | undefined;
  private reflector: StoreReflector | undefined;
  private pods: SlimInformer<SlimPod> | undefined;
  private nodes: SlimInformer<SlimNode> | undefined;
  private vm: (namespace: string, name: string) => VmLookup = kubevirtLookup(undefined);
  private pending: StoreChange[] = [];
  private synced = false;
  private stopped = false;
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private lastPassEnd = 0;
  private lastFullScan = 0;
  private lastAlive: number;
  private passCount = 0;
  private lastError: string | undefined;

  constructor(private readonly options: IpamGcControllerOptions) {
    this.now = options.now ?? Date.now;
    this.settings = options.settings;
    this.backoff = createItemBackoff({
      baseMs: this.settings.backoffBaseMs,
      maxMs: this.settings.backoffMaxMs,
    });
    this.lastAlive = this.now();
  }

  passes(): number {
    return this.passCount;
  }

  async start(c: ControllerContext): Promise<void> {
    this.ctx = c;
    const log = withLogFields(c.logger, { controller: 'ipam-gc' });
    this.log = log;
    const metrics = createIpamGcMetrics(c.registry);
    this.metrics = metrics;
    metrics.setLeader(c.leadership.isLeader());
    c.leadership.onChange((leading) => {
      metrics.setLeader(leading);
      // A new leader judges everything afresh; a former one has nothing to finish.
      this.fullScan();
    });
    const pods = c.informers.pods();
    const nodes = c.informers.nodes();
    this.pods = pods;
    this.nodes = nodes;
    pods.on('delete', this.markPodNode);
    pods.on('update', this.markPodNode);
    pods.on('add', this.markPodNode);
    nodes.on('delete', this.fullScan);
    nodes.on('add', this.fullScan);
    const kubevirt = await startKubevirtCaches(c.kube, c.informers, log);
    this.vm = kubevirtLookup(kubevirt);
    if (kubevirt) {
      kubevirt.vms.on('delete', this.fullScan);
      kubevirt.vmis.on('delete', this.fullScan);
    }
    const reflector = startStoreReflector({
      datastore: c.datastore,
      kinds: GC_STORE_KINDS,
      logger: log,
      onChanges: (changes) => {
        this.pending.push(...changes);
        this.kick();
      },
    });
    this.reflector = reflector;
    void Promise.all([reflector.synced, pods.synced, nodes.synced]).then(() => {
      if (this.stopped) return;
      this.synced = true;
      log.log('info', 'caches synced: GC running', {
        leakGracePeriodMs: this.settings.leakGracePeriodMs ?? 'unset',
        maxReleasesPerPass: this.settings.maxReleasesPerPass,
      });
      this.fullScan();
    });
  }

  readiness(): ControllerStatus {
    if (this.synced) return { ok: true };
    const waiting = [
      this.reflector?.isSynced() ? undefined : 'datastore',
      this.pods?.isSynced() ? undefined : 'pods',
      this.nodes?.isSynced() ? undefined : 'nodes',
    ].filter(Boolean);
    return { ok: false, detail: `waiting for ${waiting.join(', ')} to sync` };
  }

  health(): ControllerStatus {
    const stuck = this.options.stuckAfterMs ?? 5 * 60_000;
    // Idle with nothing scheduled is healthy; a pass running for too long is not.
    if (this.running && this.now() - this.lastAlive > stuck)
      return { ok: false, detail: `a GC pass has run for over ${stuck} ms` };
    return this.lastError
      ? { ok: true, detail: `last pass failed: ${this.lastError}` }
      : { ok: true };
  }

  beforeScrape(): void {
    if (!this.metrics) return;
    this.metrics.setLeader(this.ctx?.leadership.isLeader() ?? false);
    const seed = new Set<string>(this.state.calicoNodes.keys());
    for (const n of this.nodes?.list() ?? []) seed.add(n.metadata.name);
    this.metrics.update(computeIpamMetrics(this.state, { seedNodes: seed }));
  }

  async compareWithStore(): Promise<string> {
    const ctx = this.ctx;
    if (!ctx) throw new Error('not started');
    const idle = async (): Promise<void> => {
      while (this.running) await this.running;
      this.applyPending();
    };
    await idle();
    const items: KVPair[] = [];
    for (const kind of GC_STORE_KINDS) items.push(...(await ctx.datastore.list({ kind })).items);
    await idle();
    const live = JSON.stringify(describeState(this.state));
    const fresh = JSON.stringify(describeState(buildGcState(items)));
    return live === fresh ? '' : `live:  ${live}\nstore: ${fresh}`;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    await this.reflector?.close();
  }

  private applyPending(): void {
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    for (const c of batch) applyStoreChange(this.state, c);
  }

  /** Runs a pass no earlier than `atMs` (and not within the batch window of the last one). */
  private schedule(atMs: number): void {
    if (this.stopped) return;
    const at = Math.max(atMs, this.lastPassEnd + this.settings.batchWindowMs);
    if (at >= this.timerAt) return;
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(
      () => {
        this.timerAt = Infinity;
        void this.loop();
      },
      Math.max(0, at - this.now()),
    );
  }

  private readonly kick = (): void => this.schedule(this.now());

  private readonly markPodNode = (p: SlimPod): void => {
    if (p.nodeName !== '') this.state.dirtyNodes.add(p.nodeName);
    // Calico nodes mapped to this Kubernetes node.
    for (const [calico, k8s] of this.state.calicoNodes)
      if (k8s === p.nodeName) this.state.dirtyNodes.add(calico);
    this.kick();
  };

  private readonly fullScan = (): void => {
    this.state.fullScanRequired = true;
    this.kick();
  };

  private async loop(): Promise<void> {
    const ctx = this.ctx;
    if (this.running || this.stopped || !ctx) {
      if (this.running) void this.running.then(this.kick);
      return;
    }
    this.running = this.step(ctx);
    try {
      await this.running;
    } finally {
      this.running = undefined;
    }
    // Before the caches are synced nothing runs; the sync itself kicks the first pass.
    const state = this.state;
    if (
      this.synced &&
      (this.pending.length > 0 || state.dirtyNodes.size > 0 || state.fullScanRequired)
    )
      this.kick();
  }

  /** Applies the pending changes and, once synced, runs one pass and schedules the next. */
  private async step(ctx: ControllerContext): Promise<void> {
    const { state, settings } = this;
    this.lastAlive = this.now();
    this.applyPending();
    if (!this.synced) return;
    if (this.now() - this.lastFullScan >= settings.fullScanIntervalMs) {
      state.fullScanRequired = true;
      this.lastFullScan = this.now();
    }
    const started = performance.now();
    const report = await this.pass(ctx, started);
    this.passCount++;
    this.backoff.prune((item) => {
      const at = item.indexOf(':');
      const [kind, id] = [item.slice(0, at), item.slice(at + 1)];
      if (kind === 'node') return state.blocksByNode.has(id) || state.allocationsByNode.has(id);
      if (kind === 'handle') return state.handles.has(id);
      return state.blocks.has(id);
    });
    this.lastPassEnd = this.now();
    this.lastAlive = this.lastPassEnd;
    if (this.options.checkConsistency) {
      const problems = findStateProblems(state);
      if (problems.length > 0) {
        this.log?.log('error', 'GC state inconsistent', { problems: problems.join('; ') });
        this.events.emit('problems', problems);
      }
    }
    if (report) {
      const { nextDeadlineMs, ...counts } = report;
      this.log?.log('debug', 'GC pass done', {
        ...counts,
        ms: Math.round(performance.now() - started),
      });
      if (nextDeadlineMs !== undefined) this.schedule(nextDeadlineMs);
      this.events.emit('pass', report);
    }
    this.schedule(this.lastFullScan + settings.fullScanIntervalMs);
  }

  /** One pass with its metrics; a pass that throws is logged and retried with a full scan. */
  private async pass(ctx: ControllerContext, started: number): Promise<GcPassReport | undefined> {
    const metrics = this.metrics;
    try {
      const report = await runGcPass({
        state: this.state,
        settings: this.settings,
        backoff: this.backoff,
        nowMs: this.now(),
        ports: this.ports(ctx),
        observer: {
          reclaimed: (t, pool) => metrics?.reclaimed(pool, t.node),
          nodeCleaned: (node) => metrics?.forgetNode(node),
          error: (op) => metrics?.error(op),
        },
      });
      this.lastError = undefined;
      metrics?.pass((performance.now() - started) / 1000, report.errors > 0 ? 'error' : 'ok');
      return report;
    } catch (e) {
      this.lastError = errorText(e);
      metrics?.pass((performance.now() - started) / 1000, 'error');
      this.log?.log('error', 'GC pass failed', { error: this.lastError });
      this.state.fullScanRequired = true;
      this.schedule(this.now() + this.settings.backoffBaseMs);
      return undefined;
    }
  }

  private ports(c: ControllerContext): GcPorts {
    const live = liveLookups(c);
    return {
      ipam: c.ipam,
      datastore: c.datastore,
      cache: {
        kubernetesNodeExists: (name) => this.nodes?.get(name) !== undefined,
        pod: (namespace, name) => this.pods?.get(name, namespace),
        vm: (namespace, name) => this.vm(namespace, name),
      },
      live: this.options.wrapLiveLookups ? this.options.wrapLiveLookups(live) : live,
      logger: this.log!,
      isLeader: () => c.leadership.isLeader(),
      deleteCalicoNodes: this.options.deleteCalicoNodes ?? false,
    };
  }
}

/** The final re-validation's reads, straight from the API: NotFound is an answer, not an error. */
function liveLookups(c: ControllerContext): LiveLookups {
  return {
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
}
