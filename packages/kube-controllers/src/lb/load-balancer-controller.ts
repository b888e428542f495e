import { EventEmitter } from 'node:events';
import type { Controller, ControllerContext, ControllerStatus } from '../manager/controller.js';
import { createItemBackoff } from '../manager/item-backoff.js';
import type { ItemBackoff } from '../manager/item-backoff.js';
import { ServiceIndex, ownerHandleOf } from './service-index.js';
import type { LbKubeWriter, ServiceEvent } from './lb-kube-writer.js';
import { createLbKubeWriter, readServiceLive, startServiceInformer } from './lb-kube-writer.js';
import type { LbMetrics, LbServiceState } from './lb-metrics.js';
import { computeLbPoolMetrics, createLbMetrics } from './lb-metrics.js';
import type { LbReconcileOutcome } from './reconcile-handle.js';
import { reconcileHandle } from './reconcile-handle.js';
import { LbRetryLater } from './release-handle.js';
import type { LoadBalancerSettings } from './lb-settings.js';
import { LB_STORE_KINDS, LbState } from './lb-state.js';
import type { Logger } from '../logger.js';
import { errorText, withLogFields } from '../logger.js';
import type { SlimInformer } from '../kube/slim-informer.js';
import type { SlimService } from '@netledger/ipam-core/load-balancer';
import { serviceId } from './service-id.js';
import type { StoreChange, StoreReflector } from '../manager/store-reflector.js';
import { startStoreReflector } from '../manager/store-reflector.js';

/** Options of {@link createLoadBalancerController}. */
export interface LoadBalancerControllerOptions {
  readonly settings: LoadBalancerSettings;
  readonly now?: () => number;
  /** Kubernetes writes (default: through the API). */
  readonly kubeWriter?: LbKubeWriter;
  /** Live Service reads for the re-validation (default: GET through the API). */
  readonly readService?: (namespace: string, name: string) => Promise<SlimService | undefined>;
}

/** The LoadBalancer controller, with what tests and the bench look at. */
export interface LoadBalancerController extends Controller {
  /**
   * `reconciled` ({@link LbReconcileOutcome} with `handle`) after every reconcile, `deferred`
   * (`{ handle, error }`) when one failed and waits, `active` when it starts watching Services,
   * `idle` when caught up.
   */
  readonly events: EventEmitter;
  readonly state: LbState;
  /** Whether it has started handling Services (`auto` waits for a LoadBalancer pool). */
  isActive(): boolean;
  /** Resolves once it is synced and nothing is queued or running (backed-off handles aside). */
  idle(): Promise<void>;
}

/**
 * Gives LoadBalancer Services addresses from IP pools whose `allowedUses` include `LoadBalancer`
 * (Calico's LoadBalancer controller in kube-controllers), with Calico's handles, virtual host,
 * attributes and annotations, plus sharing keys. Inputs, never polled: the store's watch (pools,
 * reservations, the datastore lock, LoadBalancer blocks) and the Service informer (started once
 * a LoadBalancer pool exists in `auto` mode, at once in `on`). Nothing is decided before both are
 * synced: the allocations already in the store are known before anything is assigned. Work is
 * per handle (a Service's, or a sharing key's), queued on change, at most `concurrency` at once,
 * never two for one handle; a failed one is backed off and retried. Only the leader writes (with
 * the datastore unlocked); a follower judges, so its metrics are current.
 */
export function createLoadBalancerController(
  options: LoadBalancerControllerOptions,
): LoadBalancerController {
  return new LbLoop(options);
}

/** The controller's queue of handles and what it keeps between reconciles. */
class LbLoop implements LoadBalancerController {
  readonly name = 'load-balancer';
  readonly events = new EventEmitter();
  readonly state = new LbState();
  private readonly settings: LoadBalancerSettings;
  private readonly now: () => number;
  private readonly index: ServiceIndex;
  private readonly backoff: ItemBackoff;
  private readonly dirty = new Set<string>();
  private readonly running = new Map<string, number>();
  private readonly rerun = new Set<string>();
  private readonly serviceStates = new Map<string, LbServiceState>();
  /** Handles whose Services still miss a requested address: retried when an address frees up. */
  private readonly waiting = new Set<string>();
  private readonly lastWarning = new Map<string, string>();
  private readonly inFlight = new Set<Promise<void>>();
  private ctx: ControllerContext | undefined;
  private log: Logger | undefined;
  private metrics: LbMetrics | undefined;
  private writer: LbKubeWriter | undefined;
  private reflector: StoreReflector | undefined;
  private services: SlimInformer<SlimService> | undefined;
  private storeSynced = false;
  private servicesSynced = false;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private lastError: string | undefined;

  constructor(private readonly options: LoadBalancerControllerOptions) {
    this.settings = options.settings;
    this.now = options.now ?? Date.now;
    this.index = new ServiceIndex(this.settings.assignIps);
    this.backoff = createItemBackoff({
      baseMs: this.settings.backoffBaseMs,
      maxMs: this.settings.backoffMaxMs,
    });
  }

  isActive(): boolean {
    return this.services !== undefined;
  }

  start(c: ControllerContext): Promise<void> {
    this.ctx = c;
    const log = withLogFields(c.logger, { controller: 'load-balancer' });
    this.log = log;
    this.metrics = createLbMetrics(c.registry);
    this.writer = this.options.kubeWriter ?? createLbKubeWriter(c.kube);
    c.leadership.onChange((leading) => {
      if (leading) this.markAll();
    });
    const reflector = startStoreReflector({
      datastore: c.datastore,
      kinds: LB_STORE_KINDS,
      logger: log,
      onChanges: (changes) => this.onStoreChanges(changes),
    });
    this.reflector = reflector;
    void reflector.synced.then(() => {
      if (this.stopped) return;
      this.storeSynced = true;
      this.activateIfWanted();
      if (!this.services) {
        log.log('info', 'LoadBalancer controller idle: no IP pool allows LoadBalancer use');
        this.events.emit('idle');
      }
    });
    return Promise.resolve();
  }

  readiness(): ControllerStatus {
    if (!this.storeSynced) return { ok: false, detail: 'waiting for the datastore to sync' };
    if (!this.services) return { ok: true, detail: 'idle: no LoadBalancer IP pool' };
    if (!this.servicesSynced) return { ok: false, detail: 'waiting for services to sync' };
    return { ok: true };
  }

  health(): ControllerStatus {
    const t = this.now();
    const stuckAfterMs = this.settings.stuckAfterMs;
    for (const [h, since] of this.running)
      if (t - since > stuckAfterMs)
        return { ok: false, detail: `reconciling handle ${h} for over ${stuckAfterMs} ms` };
    return this.lastError
      ? { ok: true, detail: `last reconcile failed: ${this.lastError}` }
      : { ok: true };
  }

  beforeScrape(): void {
    if (!this.metrics) return;
    const counts = new Map<LbServiceState, number>();
    for (const id of this.index.managed()) {
      const s = this.serviceStates.get(id) ?? 'pending';
      counts.set(s, (counts.get(s) ?? 0) + 1);
    }
    this.metrics.update(computeLbPoolMetrics(this.state), counts);
  }

  idle(): Promise<void> {
    const isIdle = (): boolean =>
      this.storeSynced &&
      (this.services === undefined || this.servicesSynced) &&
      this.running.size === 0 &&
      !this.anyDue();
    if (isIdle()) return Promise.resolve();
    return new Promise((resolve) => {
      const check = (): void => {
        if (!isIdle()) return;
        this.events.off('idle', check);
        this.events.off('reconciled', check);
        resolve();
      };
      this.events.on('idle', check);
      this.events.on('reconciled', check);
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    await Promise.allSettled([...this.inFlight]);
    await this.reflector?.close();
  }

  /** Whether a dirty handle is due now (not backing off). */
  private anyDue(): boolean {
    const t = this.now();
    return [...this.dirty].some((d) => !this.backoff.isBackedOff(d, t));
  }

  private onStoreChanges(changes: readonly StoreChange[]): void {
    const { state } = this;
    const touched = new Set<string>();
    let pools = false;
    const wasReady = state.datastoreReady;
    for (const change of changes) {
      const d = state.apply(change);
      for (const h of d.handles) touched.add(h);
      pools ||= d.pools;
    }
    if (!this.storeSynced) return;
    if (pools || touched.size > 0)
      this.log?.log('debug', 'LoadBalancer store view changed', { handles: touched.size, pools });
    if (pools || (!wasReady && state.datastoreReady)) this.markAll();
    // An address changed hands: Services still waiting for one may get it now.
    else if (touched.size > 0) this.markDirty([...touched, ...this.waiting]);
    this.activateIfWanted();
  }

  private markDirty(handles: Iterable<string>): void {
    for (const h of handles) {
      if (this.running.has(h)) this.rerun.add(h);
      else this.dirty.add(h);
    }
    this.pump();
  }

  private markAll(): void {
    this.markDirty(new Set([...this.index.handles(), ...this.state.byHandle.keys()]));
  }

  private readonly pump = (): void => {
    if (!this.storeSynced || !this.servicesSynced || this.stopped || !this.ctx) return;
    const t = this.now();
    for (const h of [...this.dirty]) {
      if (this.running.size >= this.settings.concurrency) break;
      if (this.backoff.isBackedOff(h, t)) continue;
      this.dirty.delete(h);
      this.running.set(h, t);
      const p = this.run(h).finally(() => {
        this.inFlight.delete(p);
        this.running.delete(h);
        if (this.rerun.delete(h)) this.dirty.add(h);
        this.pump();
      });
      this.inFlight.add(p);
    }
    this.scheduleRetry();
    if (this.running.size === 0 && !this.anyDue()) this.events.emit('idle');
  };

  private scheduleRetry(): void {
    clearTimeout(this.retryTimer);
    const backedOff = [...this.dirty].some((h) => this.backoff.isBackedOff(h, this.now()));
    if (!backedOff || this.stopped) return;
    const at = this.backoff.nextRetryMs() ?? this.now();
    this.retryTimer = setTimeout(this.pump, Math.max(0, at - this.now()) + 1);
  }

  private serviceOf(id: string): SlimService | undefined {
    const at = id.indexOf('/');
    return this.services?.get(id.slice(at + 1), id.slice(0, at));
  }

  private async run(handle: string): Promise<void> {
    let outcome: LbReconcileOutcome;
    try {
      outcome = await this.reconcile(handle);
    } catch (e) {
      this.deferred(handle, e);
      return;
    }
    this.backoff.succeeded(handle);
    this.lastError = undefined;
    for (const [id, s] of outcome.states) this.serviceStates.set(id, s);
    if ([...outcome.states.values()].includes('pending')) this.waiting.add(handle);
    else this.waiting.delete(handle);
    for (const { svc, event } of outcome.notices) await this.record(svc, event);
    for (const [id, { svc, event }] of outcome.warnings) {
      const text = event && `${event.reason}: ${event.message}`;
      if (text === this.lastWarning.get(id)) continue;
      if (text === undefined) this.lastWarning.delete(id);
      else if (await this.record(svc, event!)) this.lastWarning.set(id, text);
    }
    this.events.emit('reconciled', { handle, ...outcome });
  }

  /** Reconciles one handle with its member Services and the candidates that may join it. */
  private reconcile(handle: string): Promise<LbReconcileOutcome> {
    const c = this.ctx!;
    const { index, state, settings } = this;
    const present = (s: SlimService | undefined): s is SlimService => s !== undefined;
    const members = index
      .membersOf(handle)
      .map((id) => this.serviceOf(id))
      .filter(present);
    const candidates = index
      .candidatesOf(handle)
      .filter((id) => index.ownerOf(id) === undefined)
      .map((id) => this.serviceOf(id))
      .filter(present);
    return reconcileHandle(
      {
        handle,
        members,
        candidates,
        state,
        write: c.leadership.isLeader() && state.datastoreReady,
      },
      {
        ipam: c.ipam,
        kube: this.writer!,
        readService: this.options.readService ?? ((ns, name) => readServiceLive(c.kube, ns, name)),
        ownerHandleOf: (svc) => ownerHandleOf(svc, settings.assignIps),
        logger: this.log!,
        metrics: this.metrics,
        nowMs: this.now,
      },
    );
  }

  /** A reconcile failed: the handle backs off and is queued again. */
  private deferred(handle: string, e: unknown): void {
    const delay = this.backoff.failed(handle, this.now());
    this.dirty.add(handle);
    if (!(e instanceof LbRetryLater)) {
      this.lastError = errorText(e);
      this.metrics?.error('reconcile');
    }
    this.log?.log(e instanceof LbRetryLater ? 'info' : 'warn', 'LoadBalancer reconcile deferred', {
      handle,
      retryInMs: delay,
      error: errorText(e),
    });
    this.events.emit('deferred', { handle, error: e });
  }

  /** Records an Event (leader only; best effort). Whether it was recorded. */
  private async record(svc: SlimService, event: ServiceEvent): Promise<boolean> {
    if (!this.ctx?.leadership.isLeader()) return false;
    const log = this.log;
    if (event.type === 'Warning')
      log?.log('warn', 'LoadBalancer request not satisfied', {
        service: serviceId(svc),
        reason: event.reason,
        message: event.message,
      });
    try {
      await this.writer!.recordEvent(svc, event);
      return true;
    } catch (e) {
      log?.log('warn', 'could not record an event on a Service', {
        service: serviceId(svc),
        reason: event.reason,
        error: errorText(e),
      });
      return false;
    }
  }

  private onService(svc: SlimService, deleted: boolean): void {
    const id = serviceId(svc);
    const handles = this.index.update(id, deleted ? undefined : svc);
    if (this.index.ownerOf(id) === undefined) {
      this.serviceStates.delete(id);
      if (deleted) this.lastWarning.delete(id);
    }
    this.markDirty(handles);
  }

  /** Starts the Service informer: at once in `on` mode, with the first LoadBalancer pool in `auto`. */
  private activateIfWanted(): void {
    const { settings, state } = this;
    if (this.services || this.stopped || !this.ctx || !this.storeSynced) return;
    if (settings.mode === 'auto' && !state.hasLoadBalancerPool() && state.byHandle.size === 0)
      return;
    const c = this.ctx;
    const log = this.log!;
    const services = c.informers.get('services', () => startServiceInformer(c.kube, log));
    this.services = services;
    services.on('add', (s) => this.onService(s, false));
    services.on('update', (s) => this.onService(s, false));
    services.on('delete', (s) => this.onService(s, true));
    log.log('info', 'LoadBalancer controller active: watching Services', {
      mode: settings.mode,
      assignIps: settings.assignIps,
    });
    this.events.emit('active');
    void services.synced.then(() => {
      if (this.stopped) return;
      // The informer's initial adds may have been delivered before the handlers were attached.
      for (const s of services.list()) this.index.update(serviceId(s), s);
      this.servicesSynced = true;
      log.log('info', 'LoadBalancer caches synced: assigning', {
        services: this.index.managed().length,
        handlesInStore: state.byHandle.size,
      });
      this.markAll();
      if (this.running.size === 0 && this.dirty.size === 0) this.events.emit('idle');
    });
  }
}
