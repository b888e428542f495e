import { applyHostNetwork } from './apply-host-network.js';
import type { ErrorBody } from './device-error.js';
import { DeviceError, isDeviceError, toErrorBody } from './device-error.js';
import { droppedBridges, samePool } from './diff-pools.js';
import type { LeaseStore } from './file-lease-store.js';
import { dropsInUseError, findInUseDrops } from './find-in-use-drops.js';
import { findRouteConflicts, routeConflictError } from './find-route-conflicts.js';
import type { RevisionStore } from './file-revision-store.js';
import type { IpForwarding } from './ip-forwarding.js';
import type { LeaseBook } from './lease.js';
import { EMPTY_LEASE_BOOK, filterLeases, leasesOfContainer, sameBook } from './lease.js';
import type { Clock, Logger } from './logger.js';
import { createDaemonMetrics } from './metrics.js';
import type { NatBackend, NatDriver } from './nat-driver.js';
import type { BridgeDriver } from './netlink-bridge-driver.js';
import type { RevisionPlan } from './plan-revision.js';
import { planRevision } from './plan-revision.js';
import type { StartPlan } from './plan-start.js';
import { planStart } from './plan-start.js';
import type { PoolRegistry } from './pool.js';
import type { AppliedRevision, RefusedRevision } from './refused-revision.js';
import { assessRefusedRevision, judgeStartUnderRefusal } from './refused-revision.js';
import { formatLxcNetwork } from './render-lxc-network.js';
import type { LxcNetworkConfig } from './render-lxc-network.js';
import type { Revision, RevisionFiles } from './revision.js';
import { parseRevision } from './revision.js';
import { encodeRevisionFile } from './revision-codec.js';
import type { LeaseView, PoolView } from './views.js';
import { toLeaseView, toPoolViews } from './views.js';

/** The ports the daemon drives; all I/O goes through them. */
export interface DeviceDaemonDeps {
  readonly store: LeaseStore;
  /** Where the last good revision is kept, beside the leases. */
  readonly revisions: RevisionStore;
  readonly bridges: BridgeDriver;
  readonly nat: NatDriver;
  readonly forwarding: IpForwarding;
  readonly logger: Logger;
  readonly clock: Clock;
  /** Resident memory of the process, for `/metrics`. */
  readonly memory?: () => number;
}

/** How to apply a revision. */
interface ApplyOptions {
  /**
   * Apply it even when it releases leases of running containers or deletes bridges that have
   * ports (otherwise refused with `DropsInUse`, changing nothing). Default false.
   */
  readonly force?: boolean;
}

/** The result of applying a revision. */
export interface ApplyReport {
  readonly pools: readonly PoolView[];
  readonly containers: readonly {
    readonly name: string;
    readonly mode: string;
    /** Why this container's starts will be refused (its own run.json or lxc config). */
    readonly error?: ErrorBody;
  }[];
  readonly released: readonly LeaseView[];
  readonly natBackend: NatBackend | undefined;
  readonly warnings: readonly string[];
}

/** What a boot did: which revision is in force, and the refused one if the offered revision was. */
export interface BootReport {
  /** `offered`: the revision given; `last-good`: the persisted one (the offered one was refused or none was given); `none`. */
  readonly inForce: 'offered' | 'last-good' | 'none';
  readonly refused: ErrorBody | undefined;
}

/** The result of a start: the container's leases and the LXC config to inject. */
export interface StartReport {
  readonly container: string;
  readonly leases: readonly LeaseView[];
  readonly config: LxcNetworkConfig | undefined;
  /** `config` as lxc.container.conf lines ('' for a container outside IPAM). */
  readonly lxc: string;
}

/** The daemon's health: it serves; whether a revision is in force; a refused revision, if any. */
export interface HealthReport {
  readonly ok: true;
  readonly revision: boolean;
  readonly leases: number;
  readonly running: readonly string[];
  /** Present while the last revision offered is refused: why (the previous one stays in force). */
  readonly refused?: ErrorBody;
}

/** The device daemon's operations, serialised: one runs at a time. */
export interface DeviceDaemon {
  /** Restores the persisted leases, pools and last good revision; call once before anything else. */
  init(): Promise<void>;
  /**
   * Brings up the host at start-up: applies `files` (the revision on disk); when that revision is
   * refused, or none is given, re-applies the last good revision so its bridges and NAT exist
   * again after a reboot, and keeps serving it. When the last good revision cannot be restored
   * either because a pool's subnet is routed elsewhere now (`RouteConflict`), nothing is set up
   * and `inForce` is `none`. Throws what a failed apply throws otherwise (`HostFailure`).
   */
  boot(files: RevisionFiles | undefined): Promise<BootReport>;
  /**
   * Applies a revision: pools diffed, bridges and NAT set up, leases pruned, reservations redone.
   * A revision refused as a whole throws, is logged once and reported by `health()` and
   * `/metrics`, and changes nothing: the revision in force stays (see `start`). Refused are an
   * invalid or missing device.json (`InvalidDeviceJson`, `InvalidPool`, `UnsupportedPoolType`,
   * `PoolConflict`), a pool subnet the host already routes through another interface
   * (`RouteConflict`), and, unless `opts.force`, one that releases leases of running containers
   * or deletes bridges with ports (`DropsInUse`). A failed host step (`HostFailure`) leaves the
   * revision in force too.
   */
  apply(files: RevisionFiles, opts?: ApplyOptions): Promise<ApplyReport>;
  /**
   * Plans a start and persists its leases before answering. While a revision is refused, a start
   * that needs what it changes (a changed pool, a new or changed pool-using container) is refused
   * with `RevisionRefused`; the others are served by the revision in force.
   */
  start(container: string): Promise<StartReport>;
  /** Marks a container stopped; its leases are kept for the next start. */
  stop(
    container: string,
  ): Promise<{ readonly container: string; readonly leases: readonly LeaseView[] }>;
  /** Releases every lease of the container. */
  teardown(
    container: string,
  ): Promise<{ readonly container: string; readonly released: readonly LeaseView[] }>;
  leases(): readonly LeaseView[];
  pools(): readonly PoolView[];
  health(): HealthReport;
  /** The Prometheus text exposition. */
  metrics(): Promise<string>;
  /** The Content-Type of {@link DeviceDaemon.metrics}'s text. */
  readonly metricsContentType: string;
}

/** The codes that refuse a revision as a whole. */
const REVISION_REFUSALS: ReadonlySet<string> = new Set([
  'InvalidDeviceJson',
  'InvalidPool',
  'UnsupportedPoolType',
  'PoolConflict',
  'RouteConflict',
  'DropsInUse',
]);

/**
 * Creates the daemon. Every state change is persisted (crash-safe) before it is reported, so an
 * address handed to LXC is never lost by a `kill -9`. Refusals are `DeviceError`s; on a refused
 * start no lease of that attempt survives, on a refused or failed apply the revision in force stays.
 */
export function createDeviceDaemon(deps: DeviceDaemonDeps): DeviceDaemon {
  const { logger } = deps;
  let book: LeaseBook = EMPTY_LEASE_BOOK;
  let hostPools: PoolRegistry = new Map();
  let current: AppliedRevision | undefined;
  let savedRevisionText: string | undefined;
  let refused: RefusedRevision | undefined;
  const running = new Set<string>();
  const metrics = createDaemonMetrics(() => ({
    pools: toPoolViews(hostPools, book),
    leases: book.leases.size,
    rssBytes: deps.memory?.() ?? 0,
    refused: refused !== undefined,
  }));
  let queue: Promise<unknown> = Promise.resolve();

  function serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = queue.then(fn, fn);
    // Not dropped: the caller gets the error from `next`; the queue only orders the next call.
    queue = next.catch(() => undefined);
    return next;
  }

  /** Saves a new state before it takes effect; an unchanged one is not written again (flash wear). */
  async function persist(nextBook: LeaseBook, nextPools: PoolRegistry): Promise<void> {
    if (nextBook === book && nextPools === hostPools) return;
    const unchanged =
      sameBook(nextBook, book) &&
      nextPools.size === hostPools.size &&
      [...nextPools].every(([name, p]) => {
        const before = hostPools.get(name);
        return before !== undefined && samePool(before, p);
      });
    if (!unchanged) await deps.store.save({ pools: nextPools, book: nextBook });
    book = nextBook;
    hostPools = nextPools;
  }

  function failed(e: unknown): never {
    if (e instanceof DeviceError) metrics.applyFailures.inc({ code: e.code });
    throw e;
  }

  /** Records a refused revision; logs it unless it is the one already refused. */
  function refuse(files: RevisionFiles, e: DeviceError): void {
    const next = assessRefusedRevision({ files, error: e, current });
    const same =
      refused !== undefined &&
      refused.deviceJson === next.deviceJson &&
      refused.error.code === next.error.code &&
      refused.error.message === next.error.message;
    refused = next;
    if (same) return;
    logger.log(
      'error',
      current === undefined
        ? 'revision refused; no revision in force'
        : 'revision refused; the last good revision stays in force',
      { error: next.error },
    );
  }

  /** Counts a failed host step; logs it unless it is a refusal (which `refuse` logs). */
  function hostStepFailed(e: unknown): never {
    if (e instanceof DeviceError && !REVISION_REFUSALS.has(e.code))
      logger.log('error', 'host network set-up failed; the revision in force stays', {
        error: toErrorBody(e),
      });
    return failed(e);
  }

  /**
   * Refuses (before anything changes) a revision that would drop what running containers use,
   * unless forced, and one whose pool subnets the host already routes through other interfaces.
   */
  async function checkHost(plan: RevisionPlan, rev: Revision, force: boolean): Promise<void> {
    if (!force) {
      const dropped: { pool: string; bridge: string; ports: readonly string[] }[] = [];
      for (const b of droppedBridges(plan.diff))
        dropped.push({ ...b, ports: await deps.bridges.listPorts(b.bridge) });
      const drops = findInUseDrops({ released: plan.released, running, dropped });
      if (drops.length > 0) throw dropsInUseError(drops);
    }
    if (rev.pools.size === 0) return;
    const ownBridges = new Set([...hostPools.values(), ...rev.pools.values()].map((p) => p.bridge));
    const routes = await deps.bridges.listRoutes();
    const conflicts = findRouteConflicts({ pools: rev.pools, routes, ownBridges });
    if (conflicts.length > 0) throw routeConflictError(conflicts);
  }

  /** Installs a parsed revision: host checks, host network, leases, persistence. */
  async function install(
    files: RevisionFiles,
    rev: Revision,
    opts: { readonly force: boolean },
  ): Promise<ApplyReport> {
    const plan = planRevision(book, hostPools, rev);
    const usesNetwork =
      rev.pools.size > 0 || [...rev.containers.values()].some((c) => c.network.mode !== 'none');
    let natBackend: NatBackend | undefined;
    const warnings: string[] = [];
    if (!usesNetwork && hostPools.size === 0) {
      logger.log('info', 'no network pools and no container network blocks: IPAM setup is a no-op');
    } else {
      await checkHost(plan, rev, opts.force).catch(hostStepFailed);
      const host = await applyHostNetwork({
        ...deps,
        diff: plan.diff,
        previous: hostPools,
        pools: rev.pools,
      }).catch(hostStepFailed);
      natBackend = host.natBackend;
      warnings.push(...host.warnings);
    }
    for (const w of warnings) logger.log('warn', w);
    metrics.natWarnings.inc(warnings.length);
    await persist(plan.book, rev.pools);
    const text = encodeRevisionFile(files);
    if (text !== savedRevisionText) {
      await deps.revisions.save(files);
      savedRevisionText = text;
    }
    current = { files, revision: rev };
    for (const name of running) if (!rev.containers.has(name)) running.delete(name);
    metrics.applies.inc();
    for (const l of plan.released) logger.log('info', 'released lease', { ...toLeaseView(l) });
    for (const r of plan.reservations) {
      const level =
        r.outcome === 'reserved'
          ? 'info'
          : r.outcome === 'duplicate' || r.outcome === 'outside-pools'
            ? 'debug'
            : 'warn';
      logger.log(level, `static IP from lxc config: ${r.outcome}`, { ...r });
    }
    for (const c of rev.containers.values()) {
      if (c.error !== undefined)
        logger.log('error', 'container refused by its files', {
          container: c.name,
          error: toErrorBody(c.error),
        });
    }
    return {
      pools: toPoolViews(rev.pools, book),
      containers: [...rev.containers.values()].map((c) => ({
        name: c.name,
        mode: c.network.mode,
        ...(c.error === undefined ? {} : { error: toErrorBody(c.error) }),
      })),
      released: plan.released.map(toLeaseView),
      natBackend,
      warnings,
    };
  }

  /** Parses and installs; a revision refused as a whole is recorded. */
  async function applyOffered(files: RevisionFiles, opts: ApplyOptions): Promise<ApplyReport> {
    let rev: Revision;
    try {
      rev = parseRevision(files);
    } catch (e) {
      if (e instanceof DeviceError && REVISION_REFUSALS.has(e.code)) refuse(files, e);
      return failed(e);
    }
    let report: ApplyReport;
    try {
      report = await install(files, rev, { force: opts.force === true });
    } catch (e) {
      if (e instanceof DeviceError && REVISION_REFUSALS.has(e.code)) refuse(files, e);
      throw e;
    }
    if (refused !== undefined)
      logger.log('info', 'revision accepted; the refused one is forgotten');
    refused = undefined;
    return report;
  }

  /** The start's plan (undefined: nothing to lease) under the revision in force and a refused one. */
  function planServedStart(container: string): StartPlan | undefined {
    if (refused !== undefined && judgeStartUnderRefusal(refused, container) === 'no-network')
      return undefined;
    if (current === undefined) throw new DeviceError('NoRevision', 'no revision applied yet');
    return planStart(book, current.revision, container);
  }

  return {
    async init() {
      const state = await deps.store.load();
      if (state !== undefined) {
        book = state.book;
        hostPools = state.pools;
        logger.log('info', 'restored leases', { leases: book.leases.size, pools: hostPools.size });
      }
      const files = await deps.revisions.load();
      if (files !== undefined) {
        try {
          current = { files, revision: parseRevision(files) };
          savedRevisionText = encodeRevisionFile(files);
          logger.log('info', 'restored the last good revision', {
            pools: current.revision.pools.size,
            containers: current.revision.containers.size,
          });
        } catch (e) {
          if (!(e instanceof DeviceError)) throw e;
          logger.log('warn', 'the persisted last good revision no longer parses; ignoring it', {
            error: toErrorBody(e),
          });
        }
      }
      logger.log('info', 'IPAM subsystem initialized');
    },

    boot(files) {
      return serial(async () => {
        if (files !== undefined) {
          try {
            await applyOffered(files, {});
            return { inForce: 'offered', refused: undefined };
          } catch (e) {
            if (!(e instanceof DeviceError) || !REVISION_REFUSALS.has(e.code)) throw e;
          }
        }
        if (current === undefined) return { inForce: 'none', refused: refused?.error };
        try {
          // The revision that was in force comes back as it was: what it drops was its own.
          await install(current.files, current.revision, { force: true });
        } catch (e) {
          if (!isDeviceError(e, 'RouteConflict')) throw e;
          logger.log('error', 'the last good revision cannot be restored; no revision in force', {
            error: toErrorBody(e),
          });
          refused ??= assessRefusedRevision({ files: current.files, error: e, current: undefined });
          current = undefined;
          return { inForce: 'none', refused: refused.error };
        }
        return { inForce: 'last-good', refused: refused?.error };
      });
    },

    apply(files, opts = {}) {
      return serial(() => applyOffered(files, opts));
    },

    start(container) {
      return serial(async () => {
        metrics.starts.inc();
        let plan: StartPlan | undefined;
        try {
          plan = planServedStart(container);
        } catch (e) {
          if (e instanceof DeviceError) {
            metrics.startRefusals.inc({ code: e.code });
            logger.log('error', 'refusing to start', { container, error: toErrorBody(e) });
          }
          throw e;
        }
        if (plan !== undefined) await persist(plan.book, hostPools);
        running.add(container);
        for (const l of plan?.leases ?? []) {
          logger.log('info', 'platform network', {
            container,
            interface: l.interface,
            ip: l.address,
            mac: l.mac,
            pool: l.pool,
          });
        }
        const config = plan?.config;
        return {
          container,
          leases: (plan?.leases ?? []).map(toLeaseView),
          config,
          lxc: config === undefined ? '' : formatLxcNetwork(config),
        };
      });
    },

    stop(container) {
      return serial(async () => {
        if (current === undefined) throw new DeviceError('NoRevision', 'no revision applied yet');
        if (!current.revision.containers.has(container) && !refused?.containers.has(container)) {
          throw new DeviceError(
            'UnknownContainer',
            `container '${container}' is not in the applied revision`,
          );
        }
        running.delete(container);
        return { container, leases: leasesOfContainer(book, container).map(toLeaseView) };
      });
    },

    teardown(container) {
      return serial(async () => {
        const released = leasesOfContainer(book, container);
        await persist(
          filterLeases(book, (l) => l.owner !== container),
          hostPools,
        );
        running.delete(container);
        for (const l of released) logger.log('info', 'released lease', { ...toLeaseView(l) });
        return { container, released: released.map(toLeaseView) };
      });
    },

    leases: () => [...book.leases.values()].map(toLeaseView),
    pools: () => toPoolViews(hostPools, book),
    health: () => ({
      ok: true,
      revision: current !== undefined,
      leases: book.leases.size,
      running: [...running].sort(),
      ...(refused === undefined ? {} : { refused: refused.error }),
    }),
    metrics: () => metrics.render(),
    metricsContentType: metrics.contentType,
  };
}
