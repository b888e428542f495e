import { EventEmitter } from 'node:events';
import type { Controller, ControllerContext, ControllerStatus } from '../manager/controller.js';
import { createItemBackoff } from '../manager/item-backoff.js';
import { isNotFound } from '../kube/kube-client.js';
import { ServiceIndex, ownerHandleOf } from './service-index.js';
import type { LbKubeWriter, ServiceEvent } from './lb-kube-writer.js';
import { createLbKubeWriter, startServiceInformer } from './lb-kube-writer.js';
import type { LbMetrics, LbServiceState } from './lb-metrics.js';
import { computeLbPoolMetrics, createLbMetrics } from './lb-metrics.js';
import type { LbReconcileOutcome } from './reconcile-handle.js';
import { LbRetryLater, reconcileHandle } from './reconcile-handle.js';
import type { LoadBalancerSettings } from './lb-settings.js';
import { LB_STORE_KINDS, LbState } from './lb-state.js';
import type { Logger } from '../logger.js';
import { errorText, withLogFields } from '../logger.js';
import type { SlimInformer } from '../kube/slim-informer.js';
import type { SlimService } from '@netledger/ipam-core/load-balancer';
import { serviceId } from './service-id.js';
import { slimService } from '@netledger/ipam-core/load-balancer';
import type { StoreReflector } from '../manager/store-reflector.js';
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
  const settings = options.settings;
  const now = options.now ?? Date.now;
  const events = new EventEmitter();
  const state = new LbState();
  const index = new ServiceIndex(settings.assignIps);
  const backoff = createItemBackoff({
    baseMs: settings.backoffBaseMs,
    maxMs: settings.backoffMaxMs,
  });
  const dirty = new Set<string>();
  const running = new Map<string, number>();
  const rerun = new Set<string>();
  const serviceStates = new Map<string, LbServiceState>();
  /** Handles whose Services still miss a requested address: retried when an address frees up. */
  const waiting = new Set<string>();
  const lastWarning = new Map<string, string>();
  let ctx: ControllerContext | undefined;
  let log: Logger | undefined;
  let metrics: LbMetrics | undefined;
  let writer: LbKubeWriter | undefined;
  let reflector: StoreReflector | undefined;
  let services: SlimInformer<SlimService> | undefined;
  let storeSynced = false;
  let servicesSynced = false;
  let stopped = false;
  let retryTimer: NodeJS.Timeout | undefined;
  let lastError: string | undefined;
  const inFlight = new Set<Promise<void>>();

  const ready = (): boolean => storeSynced && servicesSynced && !stopped;

  const markDirty = (handles: Iterable<string>): void => {
    for (const h of handles) {
      if (running.has(h)) rerun.add(h);
      else dirty.add(h);
    }
    pump();
  };
  const markAll = (): void => markDirty(new Set([...index.handles(), ...state.byHandle.keys()]));

  function pump(): void {
    if (!ready() || !ctx) return;
    const t = now();
    for (const h of [...dirty]) {
      if (running.size >= settings.concurrency) break;
      if (backoff.isBackedOff(h, t)) continue;
      dirty.delete(h);
      running.set(h, t);
      const p = run(h).finally(() => {
        inFlight.delete(p);
        running.delete(h);
        if (rerun.delete(h)) dirty.add(h);
        pump();
      });
      inFlight.add(p);
    }
    scheduleRetry();
    if (running.size === 0 && ![...dirty].some((d) => !backoff.isBackedOff(d, t)))
      events.emit('idle');
  }

  function scheduleRetry(): void {
    clearTimeout(retryTimer);
    const backedOff = [...dirty].some((h) => backoff.isBackedOff(h, now()));
    if (!backedOff || stopped) return;
    const at = backoff.nextRetryMs() ?? now();
    retryTimer = setTimeout(pump, Math.max(0, at - now()) + 1);
  }

  const serviceOf = (id: string): SlimService | undefined => {
    const at = id.indexOf('/');
    return services?.get(id.slice(at + 1), id.slice(0, at));
  };

  async function run(handle: string): Promise<void> {
    const c = ctx!;
    const members = index
      .membersOf(handle)
      .map(serviceOf)
      .filter((s): s is SlimService => s !== undefined);
    const candidates = index
      .candidatesOf(handle)
      .filter((id) => index.ownerOf(id) === undefined)
      .map(serviceOf)
      .filter((s): s is SlimService => s !== undefined);
    let outcome: LbReconcileOutcome;
    try {
      outcome = await reconcileHandle(
        {
          handle,
          members,
          candidates,
          state,
          write: c.leadership.isLeader() && state.datastoreReady,
        },
        {
          ipam: c.ipam,
          kube: writer!,
          readService: options.readService ?? readServiceLive,
          ownerHandleOf: (svc) => ownerHandleOf(svc, settings.assignIps),
          logger: log!,
          metrics,
          nowMs: now,
        },
      );
    } catch (e) {
      const delay = backoff.failed(handle, now());
      dirty.add(handle);
      if (!(e instanceof LbRetryLater)) {
        lastError = errorText(e);
        metrics?.error('reconcile');
      }
      log?.log(e instanceof LbRetryLater ? 'info' : 'warn', 'LoadBalancer reconcile deferred', {
        handle,
        retryInMs: delay,
        error: errorText(e),
      });
      events.emit('deferred', { handle, error: e });
      return;
    }
    backoff.succeeded(handle);
    lastError = undefined;
    for (const [id, s] of outcome.states) serviceStates.set(id, s);
    if ([...outcome.states.values()].includes('pending')) waiting.add(handle);
    else waiting.delete(handle);
    for (const { svc, event } of outcome.notices) await record(svc, event);
    for (const [id, { svc, event }] of outcome.warnings) {
      const text = event && `${event.reason}: ${event.message}`;
      if (text === lastWarning.get(id)) continue;
      if (text === undefined) lastWarning.delete(id);
      else if (await record(svc, event!)) lastWarning.set(id, text);
    }
    events.emit('reconciled', { handle, ...outcome });
  }

  /** Records an Event (leader only; best effort). Whether it was recorded. */
  async function record(svc: SlimService, event: ServiceEvent): Promise<boolean> {
    if (!ctx?.leadership.isLeader()) return false;
    if (event.type === 'Warning')
      log?.log('warn', 'LoadBalancer request not satisfied', {
        service: serviceId(svc),
        reason: event.reason,
        message: event.message,
      });
    try {
      await writer!.recordEvent(svc, event);
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

  async function readServiceLive(namespace: string, name: string) {
    try {
      return slimService(await ctx!.kube.core.readNamespacedService({ name, namespace }));
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }

  const onService = (svc: SlimService, deleted: boolean): void => {
    const id = serviceId(svc);
    const handles = index.update(id, deleted ? undefined : svc);
    if (index.ownerOf(id) === undefined) {
      serviceStates.delete(id);
      if (deleted) lastWarning.delete(id);
    }
    markDirty(handles);
  };

  /** Starts the Service informer: at once in `on` mode, with the first LoadBalancer pool in `auto`. */
  function activateIfWanted(): void {
    if (services || stopped || !ctx || !storeSynced) return;
    if (settings.mode === 'auto' && !state.hasLoadBalancerPool() && state.byHandle.size === 0)
      return;
    const c = ctx;
    services = c.informers.get('services', () => startServiceInformer(c.kube, log!));
    services.on('add', (s) => onService(s, false));
    services.on('update', (s) => onService(s, false));
    services.on('delete', (s) => onService(s, true));
    log?.log('info', 'LoadBalancer controller active: watching Services', {
      mode: settings.mode,
      assignIps: settings.assignIps,
    });
    events.emit('active');
    void services.synced.then(() => {
      if (stopped) return;
      // The informer's initial adds may have been delivered before the handlers were attached.
      for (const s of services!.list()) index.update(serviceId(s), s);
      servicesSynced = true;
      log?.log('info', 'LoadBalancer caches synced: assigning', {
        services: index.managed().length,
        handlesInStore: state.byHandle.size,
      });
      markAll();
      if (running.size === 0 && dirty.size === 0) events.emit('idle');
    });
  }

  return {
    name: 'load-balancer',
    events,
    state,
    isActive: () => services !== undefined,
    async start(c) {
      ctx = c;
      log = withLogFields(c.logger, { controller: 'load-balancer' });
      metrics = createLbMetrics(c.registry);
      writer = options.kubeWriter ?? createLbKubeWriter(c.kube);
      c.leadership.onChange((leading) => {
        if (leading) markAll();
      });
      reflector = startStoreReflector({
        datastore: c.datastore,
        kinds: LB_STORE_KINDS,
        logger: log,
        onChanges: (changes) => {
          const touched = new Set<string>();
          let pools = false;
          const wasReady = state.datastoreReady;
          for (const change of changes) {
            const d = state.apply(change);
            for (const h of d.handles) touched.add(h);
            pools ||= d.pools;
          }
          if (!storeSynced) return;
          if (pools || touched.size > 0)
            log?.log('debug', 'LoadBalancer store view changed', { handles: touched.size, pools });
          if (pools || (!wasReady && state.datastoreReady)) markAll();
          // An address changed hands: Services still waiting for one may get it now.
          else if (touched.size > 0) markDirty([...touched, ...waiting]);
          activateIfWanted();
        },
      });
      void reflector.synced.then(() => {
        if (stopped) return;
        storeSynced = true;
        activateIfWanted();
        if (!services) {
          log?.log('info', 'LoadBalancer controller idle: no IP pool allows LoadBalancer use');
          events.emit('idle');
        }
      });
    },
    readiness(): ControllerStatus {
      if (!storeSynced) return { ok: false, detail: 'waiting for the datastore to sync' };
      if (!services) return { ok: true, detail: 'idle: no LoadBalancer IP pool' };
      if (!servicesSynced) return { ok: false, detail: 'waiting for services to sync' };
      return { ok: true };
    },
    health(): ControllerStatus {
      const t = now();
      for (const [h, since] of running)
        if (t - since > settings.stuckAfterMs)
          return {
            ok: false,
            detail: `reconciling handle ${h} for over ${settings.stuckAfterMs} ms`,
          };
      return lastError ? { ok: true, detail: `last reconcile failed: ${lastError}` } : { ok: true };
    },
    beforeScrape() {
      if (!metrics) return;
      const counts = new Map<LbServiceState, number>();
      for (const id of index.managed()) {
        const s = serviceStates.get(id) ?? 'pending';
        counts.set(s, (counts.get(s) ?? 0) + 1);
      }
      metrics.update(computeLbPoolMetrics(state), counts);
    },
    idle() {
      const isIdle = (): boolean =>
        storeSynced &&
        (services === undefined || servicesSynced) &&
        running.size === 0 &&
        ![...dirty].some((d) => !backoff.isBackedOff(d, now()));
      if (isIdle()) return Promise.resolve();
      return new Promise((resolve) => {
        const check = (): void => {
          if (!isIdle()) return;
          events.off('idle', check);
          events.off('reconciled', check);
          resolve();
        };
        events.on('idle', check);
        events.on('reconciled', check);
      });
    },
    async stop() {
      stopped = true;
      clearTimeout(retryTimer);
      await Promise.allSettled([...inFlight]);
      await reflector?.close();
    },
  };
}
