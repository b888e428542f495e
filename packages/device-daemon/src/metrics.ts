import type { PoolView } from './views.js';

/** Counters the daemon keeps for `/metrics`. */
export interface DaemonCounters {
  applies: number;
  applyFailures: number;
  starts: number;
  refusals: Map<string, number>;
  natWarnings: number;
}

/** A fresh set of counters. */
export function createCounters(): DaemonCounters {
  return { applies: 0, applyFailures: 0, starts: 0, refusals: new Map(), natWarnings: 0 };
}

function label(v: string): string {
  return v.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n');
}

/** Renders the Prometheus text exposition of the counters and per-pool gauges. */
export function renderMetrics(args: {
  counters: DaemonCounters;
  pools: readonly PoolView[];
  leases: number;
  rssBytes: number;
}): string {
  const out: string[] = [];
  const metric = (
    name: string,
    type: 'counter' | 'gauge',
    help: string,
    samples: [string, number][],
  ): void => {
    out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const [labels, v] of samples) out.push(`${name}${labels} ${v}`);
  };
  const { counters: c } = args;
  metric('netledger_device_applies_total', 'counter', 'Revisions applied.', [['', c.applies]]);
  metric('netledger_device_apply_failures_total', 'counter', 'Revisions refused or failed.', [
    ['', c.applyFailures],
  ]);
  metric('netledger_device_starts_total', 'counter', 'Container starts planned.', [['', c.starts]]);
  metric(
    'netledger_device_start_refusals_total',
    'counter',
    'Container starts refused, by error code.',
    [...c.refusals].map(([code, n]) => [`{code="${label(code)}"}`, n]),
  );
  metric(
    'netledger_device_nat_warnings_total',
    'counter',
    'NAT setups that failed (pool kept without NAT).',
    [['', c.natWarnings]],
  );
  metric('netledger_device_leases', 'gauge', 'Leases held, reservations included.', [
    ['', args.leases],
  ]);
  const per = (pick: (p: PoolView) => number): [string, number][] =>
    args.pools.map((p) => [`{pool="${label(p.name)}"}`, pick(p)]);
  metric(
    'netledger_device_pool_capacity',
    'gauge',
    'Allocatable addresses per pool.',
    per((p) => p.capacity),
  );
  metric(
    'netledger_device_pool_leased',
    'gauge',
    'Addresses leased to containers per pool.',
    per((p) => p.leased),
  );
  metric(
    'netledger_device_pool_reserved',
    'gauge',
    'Addresses reserved from lxc configs per pool.',
    per((p) => p.reserved),
  );
  metric(
    'netledger_device_pool_free',
    'gauge',
    'Free addresses per pool.',
    per((p) => p.free),
  );
  metric('netledger_device_resident_memory_bytes', 'gauge', 'Resident set size of the daemon.', [
    ['', args.rssBytes],
  ]);
  return out.join('\n') + '\n';
}
