import { applyOfferedRevision } from './apply-offered-revision.js';
import { bootDaemon } from './boot-daemon.js';
import type {
  ApplyOptions,
  ApplyReport,
  BootReport,
  HealthReport,
  StartReport,
} from './daemon-reports.js';
import { createDaemonState } from './daemon-state.js';
import type { LeaseStore } from './file-lease-store.js';
import type { RevisionStore } from './file-revision-store.js';
import type { IpForwarding } from './ip-forwarding.js';
import type { Clock, Logger } from './logger.js';
import type { NatDriver } from './nat-driver.js';
import type { BridgeDriver } from './netlink-bridge-driver.js';
import { restoreDaemonState } from './restore-daemon-state.js';
import type { RevisionFiles } from './revision.js';
import { startContainer } from './start-container.js';
import { stopContainer, teardownContainer } from './stop-container.js';
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

/**
 * Creates the daemon. Every state change is persisted (crash-safe) before it is reported, so an
 * address handed to LXC is never lost by a `kill -9`. Refusals are `DeviceError`s; on a refused
 * start no lease of that attempt survives, on a refused or failed apply the revision in force stays.
 */
export function createDeviceDaemon(deps: DeviceDaemonDeps): DeviceDaemon {
  const state = createDaemonState(deps);
  let queue: Promise<unknown> = Promise.resolve();

  function serial<T>(fn: () => Promise<T> | T): Promise<T> {
    const next = queue.then(fn, fn);
    // Not dropped: the caller gets the error from `next`; the queue only orders the next call.
    queue = next.catch(() => undefined);
    return next;
  }

  return {
    init: () => restoreDaemonState(state),
    boot: (files) => serial(() => bootDaemon(state, files)),
    apply: (files, opts = {}) => serial(() => applyOfferedRevision(state, files, opts)),
    start: (container) => serial(() => startContainer(state, container)),
    stop: (container) => serial(() => stopContainer(state, container)),
    teardown: (container) => serial(() => teardownContainer(state, container)),
    leases: () => [...state.book.leases.values()].map(toLeaseView),
    pools: () => toPoolViews(state.hostPools, state.book),
    health: () => ({
      ok: true,
      revision: state.current !== undefined,
      leases: state.book.leases.size,
      running: [...state.running].sort(),
      ...(state.refused === undefined ? {} : { refused: state.refused.error }),
    }),
    metrics: () => state.metrics.render(),
    metricsContentType: state.metrics.contentType,
  };
}
