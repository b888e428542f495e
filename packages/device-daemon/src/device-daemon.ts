import { DeviceError } from './device-error.js';
import type { LeaseStore } from './file-lease-store.js';
import type { IpForwarding } from './ip-forwarding.js';
import type { LeaseBook } from './lease.js';
import { EMPTY_LEASE_BOOK, filterLeases } from './lease.js';
import type { Clock, Logger } from './logger.js';
import type { DaemonCounters } from './metrics.js';
import { createCounters, renderMetrics } from './metrics.js';
import type { NatBackend, NatDriver } from './nat-driver.js';
import type { BridgeDriver } from './netlink-bridge-driver.js';
import { planRevision } from './plan-revision.js';
import { planStart } from './plan-start.js';
import type { PoolRegistry } from './pool.js';
import { formatLxcNetwork } from './render-lxc-network.js';
import type { LxcNetworkConfig } from './render-lxc-network.js';
import type { Revision, RevisionFiles } from './revision.js';
import { parseRevision } from './revision.js';
import { applyHostNetwork } from './apply-host-network.js';
import type { LeaseView, PoolView } from './views.js';
import { toLeaseView, toPoolViews } from './views.js';

/** The ports the daemon drives; all I/O goes through them. */
export interface DeviceDaemonDeps {
  readonly store: LeaseStore;
  readonly bridges: BridgeDriver;
  readonly nat: NatDriver;
  readonly forwarding: IpForwarding;
  readonly logger: Logger;
  readonly clock: Clock;
  /** Resident memory of the process, for `/metrics`. */
  readonly memory?: () => number;
}

/** The result of applying a revision. */
export interface ApplyReport {
  readonly pools: readonly PoolView[];
  readonly containers: readonly {
    readonly name: string;
    readonly mode: string;
    readonly error?: string;
  }[];
  readonly released: readonly LeaseView[];
  readonly natBackend: NatBackend | undefined;
  readonly warnings: readonly string[];
}

/** The result of a start: the container's leases and the LXC config to inject. */
export interface StartReport {
  readonly container: string;
  readonly leases: readonly LeaseView[];
  readonly config: LxcNetworkConfig | undefined;
  /** `config` as lxc.container.conf lines ('' for a container outside IPAM). */
  readonly lxc: string;
}

/** The device daemon's operations, serialised: one runs at a time. */
export interface DeviceDaemon {
  /** Restores the persisted leases and pools; call once before anything else. */
  init(): Promise<void>;
  /** Applies a revision: pools diffed, bridges and NAT set up, leases pruned, reservations redone. */
  apply(files: RevisionFiles): Promise<ApplyReport>;
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
  health(): {
    readonly ok: true;
    readonly revision: boolean;
    readonly leases: number;
    readonly running: readonly string[];
  };
  metrics(): string;
}

/**
 * Creates the daemon. Every state change is persisted (crash-safe) before it is reported, so an
 * address handed to LXC is never lost by a `kill -9`. Refusals are `DeviceError`s; on a refused
 * start no lease of that attempt survives, on a failed apply the previous revision stays in force.
 */
export function createDeviceDaemon(deps: DeviceDaemonDeps): DeviceDaemon {
  const { logger } = deps;
  let book: LeaseBook = EMPTY_LEASE_BOOK;
  let hostPools: PoolRegistry = new Map();
  let revision: Revision | undefined;
  const running = new Set<string>();
  const counters: DaemonCounters = createCounters();
  let queue: Promise<unknown> = Promise.resolve();

  function serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = queue.then(fn, fn);
    queue = next.catch(() => undefined);
    return next;
  }

  async function persist(nextBook: LeaseBook, nextPools: PoolRegistry): Promise<void> {
    if (nextBook === book && nextPools === hostPools) return;
    await deps.store.save({ pools: nextPools, book: nextBook });
    book = nextBook;
    hostPools = nextPools;
  }

  function requireRevision(): Revision {
    if (revision === undefined) throw new DeviceError('NoRevision', 'no revision applied yet');
    return revision;
  }

  return {
    async init() {
      const state = await deps.store.load();
      if (state !== undefined) {
        book = state.book;
        hostPools = state.pools;
        logger.log('info', 'restored leases', { leases: book.leases.size, pools: hostPools.size });
      }
      logger.log('info', 'IPAM subsystem initialized');
    },

    apply(files) {
      return serial(async () => {
        let rev: Revision;
        let plan;
        try {
          rev = parseRevision(files);
          plan = planRevision(book, hostPools, rev);
        } catch (e) {
          counters.applyFailures++;
          throw e;
        }
        const usesNetwork =
          rev.pools.size > 0 || [...rev.containers.values()].some((c) => c.network.mode !== 'none');
        let natBackend: NatBackend | undefined;
        const warnings: string[] = [];
        if (!usesNetwork && hostPools.size === 0) {
          logger.log(
            'info',
            'no network pools and no container network blocks: IPAM setup is a no-op',
          );
        } else {
          try {
            const host = await applyHostNetwork({
              ...deps,
              diff: plan.diff,
              previous: hostPools,
              pools: rev.pools,
            });
            natBackend = host.natBackend;
            warnings.push(...host.warnings);
          } catch (e) {
            counters.applyFailures++;
            throw e;
          }
        }
        for (const w of warnings) logger.log('warn', w);
        counters.natWarnings += warnings.length;
        await persist(plan.book, rev.pools);
        revision = rev;
        for (const name of running) if (!rev.containers.has(name)) running.delete(name);
        counters.applies++;
        for (const l of plan.released) logger.log('info', 'released lease', { ...toLeaseView(l) });
        for (const r of plan.reservations) {
          const level =
            r.outcome === 'reserved' || r.outcome === 'duplicate' || r.outcome === 'outside-pools'
              ? 'debug'
              : 'warn';
          logger.log(
            r.outcome === 'reserved' ? 'info' : level,
            `static IP from lxc config: ${r.outcome}`,
            { ...r },
          );
        }
        for (const c of rev.containers.values()) {
          if (c.error !== undefined)
            logger.log('error', c.error.message, { container: c.name, code: c.error.code });
        }
        return {
          pools: toPoolViews(rev.pools, book),
          containers: [...rev.containers.values()].map((c) => ({
            name: c.name,
            mode: c.network.mode,
            ...(c.error === undefined ? {} : { error: `${c.error.code}: ${c.error.message}` }),
          })),
          released: plan.released.map(toLeaseView),
          natBackend,
          warnings,
        };
      });
    },

    start(container) {
      return serial(async () => {
        const rev = requireRevision();
        counters.starts++;
        let plan;
        try {
          plan = planStart(book, rev, container);
        } catch (e) {
          if (e instanceof DeviceError) {
            counters.refusals.set(e.code, (counters.refusals.get(e.code) ?? 0) + 1);
            logger.log('error', `${e.message}; refusing to start`, { container, code: e.code });
          }
          throw e;
        }
        await persist(plan.book, hostPools);
        running.add(container);
        for (const l of plan.leases) {
          logger.log('info', 'platform network', {
            container,
            interface: l.interface,
            ip: l.address,
            mac: l.mac,
            pool: l.pool,
          });
        }
        return {
          container,
          leases: plan.leases.map(toLeaseView),
          config: plan.config,
          lxc: plan.config === undefined ? '' : formatLxcNetwork(plan.config),
        };
      });
    },

    stop(container) {
      return serial(async () => {
        const rev = requireRevision();
        if (!rev.containers.has(container)) {
          throw new DeviceError(
            'UnknownContainer',
            `container '${container}' is not in the applied revision`,
          );
        }
        running.delete(container);
        const leases = [...book.leases.values()]
          .filter((l) => l.owner === container)
          .map(toLeaseView);
        return { container, leases };
      });
    },

    teardown(container) {
      return serial(async () => {
        const released = [...book.leases.values()].filter((l) => l.owner === container);
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
      revision: revision !== undefined,
      leases: book.leases.size,
      running: [...running].sort(),
    }),
    metrics: () =>
      renderMetrics({
        counters,
        pools: toPoolViews(hostPools, book),
        leases: book.leases.size,
        rssBytes: deps.memory?.() ?? 0,
      }),
  };
}
