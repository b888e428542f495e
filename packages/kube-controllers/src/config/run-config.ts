import { parseArgs } from 'node:util';
import { parseHostPort } from '@netledger/accounting';
import type { HostPort } from '@netledger/accounting';
import type { AssignIpsMode } from '@netledger/ipam-core/load-balancer';
import type { LoadBalancerMode } from '../lb/lb-settings.js';
import type { LogLevel } from '../logger.js';
import {
  SettingPicker,
  pickLeaderElectionTimings,
  pickLeakGracePeriod,
  pickLoadBalancer,
  pickLogLevel,
  pickMaxReleasesPerPass,
  pickMetricsListen,
  pickName,
} from './setting-picker.js';

/** Calico's metrics port. */
export const DEFAULT_METRICS_PORT = 9094;

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

export type Setting =
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

export const LOG_SEVERITY: Readonly<Record<string, LogLevel>> = {
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
  const p = new SettingPicker(args);
  const res = { spec, rname };
  const node = spec?.controllers?.node;
  const leakGracePeriodMs = pickLeakGracePeriod(p, res);
  const maxReleasesPerPass = pickMaxReleasesPerPass(p);
  const metricsListen = pickMetricsListen(p, res);
  const logLevel = pickLogLevel(p, res);
  const timings = pickLeaderElectionTimings(p);
  const lb = pickLoadBalancer(p, res);
  return {
    kubeconfig: args.kubeconfig,
    leakGracePeriodMs,
    maxReleasesPerPass,
    metricsListen,
    logLevel,
    leaseNamespace: pickName(p, 'leaseNamespace', 'kube-system'),
    leaseName: pickName(p, 'leaseName', 'netledger-kube-controllers'),
    ...timings,
    gcEnabled: !spec || (node !== undefined && node !== null),
    ...lb,
    sources: p.sources,
  };
}

/** Parses `HOST:PORT` (`[::1]:9094` for IPv6; an empty host means every address). */
export function parseListen(text: string, name: string): HostPort {
  const listen = parseHostPort(text.trim());
  if (listen === undefined) {
    throw new RunConfigError(
      `${name}: expected HOST:PORT (e.g. 127.0.0.1:9094 or [::1]:9094), got ${JSON.stringify(text)}`,
    );
  }
  return listen;
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
