import { parseArgs } from 'node:util';
import { DurationSyntaxError, parseDuration } from './duration.js';
import { DEFAULT_LEAK_GRACE_PERIOD_MS } from '../gc/gc-settings.js';
import type { AssignIpsMode } from '@netledger/ipam-core/load-balancer';
import { loadBalancerControllerOf } from '@netledger/ipam-core/load-balancer';
import type { LoadBalancerMode } from '../lb/lb-settings.js';
import type { LogLevel } from '../logger.js';
import { isLogLevel } from '../logger.js';

/** Calico's metrics port. */
const DEFAULT_METRICS_PORT = 9094;

/** A configuration error, naming the flag, variable or resource field at fault. */
export class RunConfigError extends Error {
  override readonly name = 'RunConfigError';
}

/** What `netledger-kube-controllers` runs with, resolved from flags, environment and the resource. */
export interface RunConfig {
  /** The kubeconfig for the Kubernetes API; undefined: in-cluster. */
  readonly kubeconfig: string | undefined;
  /** null: unset (Calico's nil). */
  readonly leakGracePeriodMs: number | null;
  readonly maxReleasesPerPass: number;
  readonly metricsListen: { readonly host: string; readonly port: number };
  readonly logLevel: LogLevel;
  readonly leaseNamespace: string;
  readonly leaseName: string;
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
  /** Whether the IPAM GC runs (a KubeControllersConfiguration without `controllers.node` turns it off). */
  readonly gcEnabled: boolean;
  /**
   * When the LoadBalancer controller runs: `auto` (the default) once an IP pool allows
   * LoadBalancer use; a KubeControllersConfiguration with `controllers.loadBalancer` turns it
   * `on`, one without it `off` (Calico: nil disables it).
   */
  readonly loadBalancer: LoadBalancerMode;
  /** Which LoadBalancer Services get addresses (Calico's `assignIPs`). */
  readonly loadBalancerAssignIps: AssignIpsMode;
  /** Where each value came from, for the start-up log. */
  readonly sources: Readonly<Record<string, 'flag' | 'env' | 'resource' | 'default'>>;
}

/** What the command line asked for before the resource is read. */
export interface ParsedArgs {
  readonly help: boolean;
  readonly version: boolean;
  readonly kubeconfig: string | undefined;
  readonly values: Partial<
    Record<Setting, { value: string; source: 'flag' | 'env'; name: string }>
  >;
}

type Setting =
  | 'leakGracePeriod'
  | 'maxReleasesPerPass'
  | 'metricsListen'
  | 'logLevel'
  | 'leaseNamespace'
  | 'leaseName'
  | 'leaseDuration'
  | 'renewDeadline'
  | 'retryPeriod'
  | 'loadBalancer'
  | 'loadBalancerAssignIps';

const FLAGS: Record<Setting, { flag: string; env: string }> = {
  leakGracePeriod: { flag: 'leak-grace-period', env: 'NETLEDGER_LEAK_GRACE_PERIOD' },
  maxReleasesPerPass: { flag: 'max-releases-per-pass', env: 'NETLEDGER_MAX_RELEASES_PER_PASS' },
  metricsListen: { flag: 'metrics-listen', env: 'NETLEDGER_METRICS_LISTEN' },
  logLevel: { flag: 'log-level', env: 'LOG_LEVEL' },
  leaseNamespace: { flag: 'lease-namespace', env: 'NETLEDGER_LEASE_NAMESPACE' },
  leaseName: { flag: 'lease-name', env: 'NETLEDGER_LEASE_NAME' },
  leaseDuration: { flag: 'lease-duration', env: 'NETLEDGER_LEASE_DURATION' },
  renewDeadline: { flag: 'renew-deadline', env: 'NETLEDGER_RENEW_DEADLINE' },
  retryPeriod: { flag: 'retry-period', env: 'NETLEDGER_RETRY_PERIOD' },
  loadBalancer: { flag: 'load-balancer', env: 'NETLEDGER_LOAD_BALANCER' },
  loadBalancerAssignIps: {
    flag: 'load-balancer-assign-ips',
    env: 'NETLEDGER_LOAD_BALANCER_ASSIGN_IPS',
  },
};

/** The usage text. */
export const USAGE = `usage: netledger-kube-controllers [--kubeconfig FILE] [options]

Runs the IPAM garbage collector and the LoadBalancer controller (and serves their metrics) against
the Kubernetes API and the IPAM store named as for netledgerctl (DATASTORE_TYPE, ETCD_ENDPOINTS,
NETLEDGER_DATASTORE_PATH, ...).

  --kubeconfig FILE              the Kubernetes API (default: $KUBECONFIG, else in-cluster)
  --leak-grace-period DURATION   candidate -> confirmed leak after this (default 15m; 0: report only)
  --max-releases-per-pass N      at most N addresses released per pass (default 10000)
  --metrics-listen HOST:PORT     /metrics, /healthz, /readyz (default 0.0.0.0:9094)
  --log-level LEVEL              debug, info, warn, error (default info)
  --lease-namespace NS           the leader-election Lease's namespace (default kube-system)
  --lease-name NAME              its name (default netledger-kube-controllers)
  --lease-duration DURATION      (default 15s)   --renew-deadline DURATION (default 10s)
  --retry-period DURATION        (default 2s)
  --load-balancer auto|on|off    LoadBalancer Service addresses from IP pools (default auto:
                                 once an IP pool allows LoadBalancer use)
  --load-balancer-assign-ips AllServices|RequestedServicesOnly   (default AllServices)
  --help, --version

Each option also reads an environment variable (NETLEDGER_LEAK_GRACE_PERIOD, LOG_LEVEL, ...);
a flag wins over the variable, which wins over the KubeControllersConfiguration "default".
`;

/** Parses argv and the environment. Throws {@link RunConfigError} for an unknown or bad flag. */
export function parseRunArgs(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): ParsedArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        kubeconfig: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean' },
        ...Object.fromEntries(
          Object.values(FLAGS).map(({ flag }) => [flag, { type: 'string' as const }]),
        ),
      },
    });
  } catch (e) {
    throw new RunConfigError((e as Error).message);
  }
  const v = parsed.values as Record<string, string | boolean | undefined>;
  const values: ParsedArgs['values'] = {};
  for (const [setting, { flag, env: name }] of Object.entries(FLAGS) as [
    Setting,
    { flag: string; env: string },
  ][]) {
    const fromFlag = v[flag];
    if (typeof fromFlag === 'string')
      values[setting] = { value: fromFlag, source: 'flag', name: `--${flag}` };
    else if (env[name]) values[setting] = { value: env[name], source: 'env', name };
  }
  const kubeconfig = typeof v.kubeconfig === 'string' ? v.kubeconfig : env.KUBECONFIG || undefined;
  return { help: v.help === true, version: v.version === true, kubeconfig, values };
}

const LOG_SEVERITY: Record<string, LogLevel> = {
  Debug: 'debug',
  Info: 'info',
  Warning: 'warn',
  Error: 'error',
  Fatal: 'error',
  Panic: 'error',
  None: 'error',
};

/** The fields of a KubeControllersConfiguration netledger reads. */
export interface KubeControllersConfigurationSpec {
  readonly controllers?: {
    readonly node?: { readonly leakGracePeriod?: unknown } | null;
    readonly loadBalancer?: unknown;
  };
  readonly prometheusMetricsPort?: unknown;
  readonly logSeverityScreen?: unknown;
}

/**
 * Resolves the run configuration: each setting from its flag, else its variable, else the
 * KubeControllersConfiguration (`spec.controllers.node.leakGracePeriod`,
 * `spec.prometheusMetricsPort`, `spec.logSeverityScreen`, `spec.controllers.loadBalancer` and its
 * `assignIPs`), else the default. Every value is
 * validated; a bad one throws {@link RunConfigError} naming where it came from.
 */
export function resolveRunConfig(
  args: ParsedArgs,
  resource?: { readonly name: string; readonly spec: KubeControllersConfigurationSpec },
): RunConfig {
  const sources: Record<string, 'flag' | 'env' | 'resource' | 'default'> = {};
  const where = (s: Setting): string => args.values[s]?.name ?? s;
  const duration = (s: Setting, text: string, name = where(s)): number => {
    try {
      return parseDuration(text);
    } catch (e) {
      if (e instanceof DurationSyntaxError) throw new RunConfigError(`${name}: ${e.message}`);
      throw e;
    }
  };
  const pick = <T>(
    s: Setting,
    parse: (text: string) => T,
    fallback: { readonly fromResource?: (() => T | undefined) | undefined; readonly otherwise: T },
  ): T => {
    const given = args.values[s];
    if (given) {
      sources[s] = given.source;
      return parse(given.value);
    }
    const r = fallback.fromResource?.();
    if (r !== undefined) {
      sources[s] = 'resource';
      return r;
    }
    sources[s] = 'default';
    return fallback.otherwise;
  };
  const spec = resource?.spec;
  const rname = resource ? `KubeControllersConfiguration ${resource.name}` : '';
  if (
    spec &&
    (spec.controllers === undefined ||
      spec.controllers === null ||
      typeof spec.controllers !== 'object')
  ) {
    throw new RunConfigError(`${rname}: spec.controllers is required`);
  }
  const node = spec?.controllers?.node;
  const leakGracePeriodMs = pick<number | null>(
    'leakGracePeriod',
    (t) => duration('leakGracePeriod', t),
    {
      fromResource: spec
        ? () => {
            const g = node?.leakGracePeriod;
            if (g === undefined || g === null) return node ? null : undefined;
            if (typeof g !== 'string')
              throw new RunConfigError(
                `${rname}: spec.controllers.node.leakGracePeriod must be a duration string`,
              );
            return duration(
              'leakGracePeriod',
              g,
              `${rname}: spec.controllers.node.leakGracePeriod`,
            );
          }
        : undefined,
      otherwise: DEFAULT_LEAK_GRACE_PERIOD_MS,
    },
  );
  const maxReleasesPerPass = pick(
    'maxReleasesPerPass',
    (t) => {
      const n = Number(t);
      if (!/^\d+$/.test(t.trim()) || !Number.isSafeInteger(n) || n < 1) {
        throw new RunConfigError(
          `${where('maxReleasesPerPass')}: must be a whole number >= 1, got ${JSON.stringify(t)}`,
        );
      }
      return n;
    },
    { otherwise: 10_000 },
  );
  const metricsListen = pick('metricsListen', (t) => parseListen(t, where('metricsListen')), {
    fromResource: spec
      ? () => {
          const p = spec.prometheusMetricsPort;
          if (p === undefined || p === null || p === 0) return undefined;
          if (typeof p !== 'number' || !Number.isInteger(p) || p < 1 || p > 65535) {
            throw new RunConfigError(
              `${rname}: spec.prometheusMetricsPort must be a port (1-65535), got ${JSON.stringify(p)}`,
            );
          }
          return { host: '0.0.0.0', port: p };
        }
      : undefined,
    otherwise: { host: '0.0.0.0', port: DEFAULT_METRICS_PORT },
  });
  const logLevel = pick<LogLevel>(
    'logLevel',
    (t) => {
      const l = t.toLowerCase() === 'warning' ? 'warn' : t.toLowerCase();
      if (!isLogLevel(l))
        throw new RunConfigError(
          `${where('logLevel')}: unknown log level ${JSON.stringify(t)} (debug, info, warn, error)`,
        );
      return l;
    },
    {
      fromResource: spec
        ? () => {
            const s = spec.logSeverityScreen;
            if (s === undefined || s === null) return undefined;
            const l = typeof s === 'string' ? LOG_SEVERITY[s] : undefined;
            if (!l)
              throw new RunConfigError(
                `${rname}: spec.logSeverityScreen: unknown severity ${JSON.stringify(s)}`,
              );
            return l;
          }
        : undefined,
      otherwise: 'info',
    },
  );
  const name = (s: Setting, dflt: string): string =>
    pick(
      s,
      (t) => {
        if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(t) || t.length > 253) {
          throw new RunConfigError(
            `${where(s)}: not a valid Kubernetes name: ${JSON.stringify(t)}`,
          );
        }
        return t;
      },
      { otherwise: dflt },
    );
  const leaseDurationMs = pick('leaseDuration', (t) => duration('leaseDuration', t), {
    otherwise: 15_000,
  });
  const renewDeadlineMs = pick('renewDeadline', (t) => duration('renewDeadline', t), {
    otherwise: 10_000,
  });
  const retryPeriodMs = pick('retryPeriod', (t) => duration('retryPeriod', t), {
    otherwise: 2_000,
  });
  if (!(
    leaseDurationMs > renewDeadlineMs &&
    renewDeadlineMs > retryPeriodMs &&
    retryPeriodMs > 0
  )) {
    throw new RunConfigError(
      `leader election needs lease duration > renew deadline > retry period > 0, got ${leaseDurationMs} ms, ${renewDeadlineMs} ms, ${retryPeriodMs} ms`,
    );
  }
  let lbResource: { readonly assignIps: AssignIpsMode } | undefined;
  try {
    lbResource = spec ? loadBalancerControllerOf(spec) : undefined;
  } catch (e) {
    throw new RunConfigError(`${rname}: ${(e as Error).message}`);
  }
  const loadBalancer = pick<LoadBalancerMode>(
    'loadBalancer',
    (t) => {
      if (t !== 'auto' && t !== 'on' && t !== 'off')
        throw new RunConfigError(
          `${where('loadBalancer')}: must be auto, on or off, got ${JSON.stringify(t)}`,
        );
      return t;
    },
    { fromResource: spec ? () => (lbResource ? 'on' : 'off') : undefined, otherwise: 'auto' },
  );
  const loadBalancerAssignIps = pick<AssignIpsMode>(
    'loadBalancerAssignIps',
    (t) => {
      if (t !== 'AllServices' && t !== 'RequestedServicesOnly')
        throw new RunConfigError(
          `${where('loadBalancerAssignIps')}: must be AllServices or RequestedServicesOnly, got ${JSON.stringify(t)}`,
        );
      return t;
    },
    { fromResource: lbResource ? () => lbResource.assignIps : undefined, otherwise: 'AllServices' },
  );
  return {
    kubeconfig: args.kubeconfig,
    leakGracePeriodMs,
    maxReleasesPerPass,
    metricsListen,
    logLevel,
    leaseNamespace: name('leaseNamespace', 'kube-system'),
    leaseName: name('leaseName', 'netledger-kube-controllers'),
    leaseDurationMs,
    renewDeadlineMs,
    retryPeriodMs,
    gcEnabled: !spec || (node !== undefined && node !== null),
    loadBalancer,
    loadBalancerAssignIps,
    sources,
  };
}

/** Parses `HOST:PORT` (`[::1]:9094` for IPv6; an empty host means every address). */
export function parseListen(text: string, name: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d+)$/.exec(text.trim());
  const port = m ? Number(m[3]) : NaN;
  if (!m || !Number.isInteger(port) || port > 65535) {
    throw new RunConfigError(
      `${name}: expected HOST:PORT (e.g. 127.0.0.1:9094 or [::1]:9094), got ${JSON.stringify(text)}`,
    );
  }
  return { host: m[1] ?? (m[2] || '0.0.0.0'), port };
}

/**
 * Reads the KubeControllersConfiguration `default` (Calico's CRD,
 * `crd.projectcalico.org/v1 kubecontrollersconfigurations`) through `get`; undefined when it or
 * its CRD does not exist (404).
 */
export async function readKubeControllersConfiguration(
  get: () => Promise<unknown>,
  isNotFound: (e: unknown) => boolean,
): Promise<{ name: string; spec: KubeControllersConfigurationSpec } | undefined> {
  let obj: unknown;
  try {
    obj = await get();
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
  const o = (obj ?? {}) as { metadata?: { name?: string }; spec?: unknown };
  if (o.spec === null || typeof o.spec !== 'object') {
    throw new RunConfigError(
      `KubeControllersConfiguration ${o.metadata?.name ?? 'default'}: has no spec`,
    );
  }
  return { name: o.metadata?.name ?? 'default', spec: o.spec };
}
