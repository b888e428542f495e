import { Counter, Gauge, Registry } from 'prom-client';
import type { PoolUsage, PoolView } from './views.js';

/** What the gauges show, read from the daemon at each scrape. */
export interface MetricsSnapshot {
  readonly pools: readonly PoolView[];
  readonly leases: number;
  readonly rssBytes: number;
  /** Whether the last revision offered was refused (the one before it stays in force). */
  readonly refused: boolean;
}

/** The daemon's Prometheus metrics (prom-client, in a registry of their own). */
export interface DaemonMetrics {
  /** Revisions applied. */
  readonly applies: Counter;
  /** Revisions refused or failed, by error code. */
  readonly applyFailures: Counter<'code'>;
  /** Container starts asked for. */
  readonly starts: Counter;
  /** Container starts refused, by error code. */
  readonly startRefusals: Counter<'code'>;
  /** NAT set-up warnings. */
  readonly natWarnings: Counter;
  /** The text exposition, gauges read from the snapshot source at this call. */
  render(): Promise<string>;
  /** The Content-Type of {@link DaemonMetrics.render}'s text. */
  readonly contentType: string;
}

type UsageKey = keyof PoolUsage;

/** The usage figures shown per pool and family: metric name, help, the figure. */
const POOL_GAUGES: readonly (readonly [string, string, UsageKey])[] = [
  ['netledger_device_pool_capacity', 'Allocatable addresses per pool and family.', 'capacity'],
  ['netledger_device_pool_leased', 'Addresses leased to containers per pool and family.', 'leased'],
  [
    'netledger_device_pool_reserved',
    'Addresses reserved from lxc configs per pool and family.',
    'reserved',
  ],
  ['netledger_device_pool_free', 'Free addresses per pool and family.', 'free'],
];

/** The daemon's counters, registered in `registers`. */
function createCounters(registers: Registry[]) {
  return {
    applies: new Counter({
      name: 'netledger_device_applies_total',
      help: 'Revisions applied.',
      registers,
    }),
    applyFailures: new Counter({
      name: 'netledger_device_apply_failures_total',
      help: 'Revisions refused or failed, by error code.',
      labelNames: ['code'] as const,
      registers,
    }),
    starts: new Counter({
      name: 'netledger_device_starts_total',
      help: 'Container starts planned.',
      registers,
    }),
    startRefusals: new Counter({
      name: 'netledger_device_start_refusals_total',
      help: 'Container starts refused, by error code.',
      labelNames: ['code'] as const,
      registers,
    }),
    natWarnings: new Counter({
      name: 'netledger_device_nat_warnings_total',
      help: 'NAT setups that failed (pool kept without NAT).',
      registers,
    }),
  };
}

/** A gauge of one of a pool's usage figures per family, read from `now()` at each scrape. */
function poolGauge(
  registers: Registry[],
  now: () => MetricsSnapshot,
  [name, help, key]: readonly [string, string, UsageKey],
): void {
  new Gauge({
    name,
    help,
    labelNames: ['pool', 'family'] as const,
    registers,
    collect() {
      this.reset();
      for (const p of now().pools) {
        if (p[key] !== undefined) this.set({ pool: p.name, family: '4' }, p[key]);
        if (p.ipv6 !== undefined) this.set({ pool: p.name, family: '6' }, p.ipv6[key]);
      }
    },
  });
}

/**
 * Creates the daemon's metrics. Counters are incremented by the daemon; gauges (leases, per pool
 * and family capacity/leased/reserved/free, RSS, a refused revision) are read from `snapshot`
 * once per scrape. Never throws.
 */
export function createDaemonMetrics(snapshot: () => MetricsSnapshot): DaemonMetrics {
  const registry = new Registry();
  const registers = [registry];
  let current: MetricsSnapshot | undefined;
  const now = (): MetricsSnapshot => (current ??= snapshot());
  const counters = createCounters(registers);
  new Gauge({
    name: 'netledger_device_leases',
    help: 'Leases held, reservations included.',
    registers,
    collect() {
      this.set(now().leases);
    },
  });
  for (const gauge of POOL_GAUGES) poolGauge(registers, now, gauge);
  new Gauge({
    name: 'netledger_device_revision_refused',
    help: '1 while the last revision offered is refused and the last good one stays in force.',
    registers,
    collect() {
      this.set(now().refused ? 1 : 0);
    },
  });
  new Gauge({
    name: 'netledger_device_resident_memory_bytes',
    help: 'Resident set size of the daemon.',
    registers,
    collect() {
      this.set(now().rssBytes);
    },
  });
  return {
    ...counters,
    async render() {
      current = undefined;
      try {
        return await registry.metrics();
      } finally {
        current = undefined;
      }
    },
    contentType: registry.contentType,
  };
}
