import type { AssignIpsMode } from '@netledger/ipam-core/load-balancer';
import { loadBalancerControllerOf } from '@netledger/ipam-core/load-balancer';
import { DurationSyntaxError, parseDuration } from './duration.js';
import { DEFAULT_LEAK_GRACE_PERIOD_MS } from '../gc/gc-settings.js';
import type { LoadBalancerMode } from '../lb/lb-settings.js';
import type { LogLevel } from '../logger.js';
import { isLogLevel } from '../logger.js';
import type { KubeControllersConfigurationSpec, ParsedArgs, Setting } from './run-config.js';
import { DEFAULT_METRICS_PORT, LOG_SEVERITY, RunConfigError, parseListen } from './run-config.js';

type Source = 'flag' | 'env' | 'resource' | 'default';

/** The KubeControllersConfiguration read (if any) and how errors name it. */
interface ResourceSpec {
  readonly spec: KubeControllersConfigurationSpec | undefined;
  /** `KubeControllersConfiguration NAME`, the prefix of its errors. */
  readonly rname: string;
}

/** Picks each setting from its flag or variable, else the resource, else a default; records where. */
export class SettingPicker {
  readonly sources: Record<string, Source> = {};

  constructor(private readonly args: ParsedArgs) {}

  /** The flag or variable a setting was given by, for errors (the setting's name if neither). */
  where(s: Setting): string {
    return this.args.values[s]?.name ?? s;
  }

  /** Parses a duration; a bad one throws {@link RunConfigError} naming `name`. */
  duration(s: Setting, text: string, name = this.where(s)): number {
    try {
      return parseDuration(text);
    } catch (e) {
      if (e instanceof DurationSyntaxError) throw new RunConfigError(`${name}: ${e.message}`);
      throw e;
    }
  }

  /** The flag's or variable's value parsed, else the resource's, else `otherwise`. */
  pick<T>(
    s: Setting,
    parse: (text: string) => T,
    fallback: { readonly fromResource?: (() => T | undefined) | undefined; readonly otherwise: T },
  ): T {
    const given = this.args.values[s];
    if (given) {
      this.sources[s] = given.source;
      return parse(given.value);
    }
    const r = fallback.fromResource?.();
    if (r !== undefined) {
      this.sources[s] = 'resource';
      return r;
    }
    this.sources[s] = 'default';
    return fallback.otherwise;
  }
}

/** The leak grace period; `null` (the node controller without one) disables the grace period. */
export function pickLeakGracePeriod(p: SettingPicker, res: ResourceSpec): number | null {
  const { spec, rname } = res;
  const node = spec?.controllers?.node;
  return p.pick<number | null>('leakGracePeriod', (t) => p.duration('leakGracePeriod', t), {
    fromResource: spec
      ? () => {
          const g = node?.leakGracePeriod;
          if (g === undefined || g === null) return node ? null : undefined;
          if (typeof g !== 'string')
            throw new RunConfigError(
              `${rname}: spec.controllers.node.leakGracePeriod must be a duration string`,
            );
          return p.duration(
            'leakGracePeriod',
            g,
            `${rname}: spec.controllers.node.leakGracePeriod`,
          );
        }
      : undefined,
    otherwise: DEFAULT_LEAK_GRACE_PERIOD_MS,
  });
}

/** The most addresses one GC pass releases (a whole number >= 1). */
export function pickMaxReleasesPerPass(p: SettingPicker): number {
  return p.pick(
    'maxReleasesPerPass',
    (t) => {
      const n = Number(t);
      if (!/^\d+$/.test(t.trim()) || !Number.isSafeInteger(n) || n < 1) {
        throw new RunConfigError(
          `${p.where('maxReleasesPerPass')}: must be a whole number >= 1, got ${JSON.stringify(t)}`,
        );
      }
      return n;
    },
    { otherwise: 10_000 },
  );
}

/** Where the HTTP endpoints listen (the resource gives a port on every address). */
export function pickMetricsListen(
  p: SettingPicker,
  res: ResourceSpec,
): { host: string; port: number } {
  const { spec, rname } = res;
  return p.pick('metricsListen', (t) => parseListen(t, p.where('metricsListen')), {
    fromResource: spec
      ? () => {
          const port = spec.prometheusMetricsPort;
          if (port === undefined || port === null || port === 0) return undefined;
          if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) {
            throw new RunConfigError(
              `${rname}: spec.prometheusMetricsPort must be a port (1-65535), got ${JSON.stringify(port)}`,
            );
          }
          return { host: '0.0.0.0', port };
        }
      : undefined,
    otherwise: { host: '0.0.0.0', port: DEFAULT_METRICS_PORT },
  });
}

/** The log level (the resource's `logSeverityScreen` in Calico's words). */
export function pickLogLevel(p: SettingPicker, res: ResourceSpec): LogLevel {
  const { spec, rname } = res;
  return p.pick<LogLevel>(
    'logLevel',
    (t) => {
      const l = t.toLowerCase() === 'warning' ? 'warn' : t.toLowerCase();
      if (!isLogLevel(l))
        throw new RunConfigError(
          `${p.where('logLevel')}: unknown log level ${JSON.stringify(t)} (debug, info, warn, error)`,
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
}

/** A Kubernetes object name (the lease's namespace or name). */
export function pickName(p: SettingPicker, s: Setting, dflt: string): string {
  return p.pick(
    s,
    (t) => {
      if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(t) || t.length > 253) {
        throw new RunConfigError(
          `${p.where(s)}: not a valid Kubernetes name: ${JSON.stringify(t)}`,
        );
      }
      return t;
    },
    { otherwise: dflt },
  );
}

/** The leader election's timings; refused unless lease duration > renew deadline > retry period > 0. */
export function pickLeaderElectionTimings(p: SettingPicker): {
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
} {
  const leaseDurationMs = p.pick('leaseDuration', (t) => p.duration('leaseDuration', t), {
    otherwise: 15_000,
  });
  const renewDeadlineMs = p.pick('renewDeadline', (t) => p.duration('renewDeadline', t), {
    otherwise: 10_000,
  });
  const retryPeriodMs = p.pick('retryPeriod', (t) => p.duration('retryPeriod', t), {
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
  return { leaseDurationMs, renewDeadlineMs, retryPeriodMs };
}

/** The LoadBalancer controller's mode and which Services it assigns to. */
export function pickLoadBalancer(
  p: SettingPicker,
  res: ResourceSpec,
): { loadBalancer: LoadBalancerMode; loadBalancerAssignIps: AssignIpsMode } {
  const { spec, rname } = res;
  let lbResource: { readonly assignIps: AssignIpsMode } | undefined;
  try {
    lbResource = spec ? loadBalancerControllerOf(spec) : undefined;
  } catch (e) {
    throw new RunConfigError(`${rname}: ${(e as Error).message}`);
  }
  const loadBalancer = p.pick<LoadBalancerMode>(
    'loadBalancer',
    (t) => {
      if (t !== 'auto' && t !== 'on' && t !== 'off')
        throw new RunConfigError(
          `${p.where('loadBalancer')}: must be auto, on or off, got ${JSON.stringify(t)}`,
        );
      return t;
    },
    { fromResource: spec ? () => (lbResource ? 'on' : 'off') : undefined, otherwise: 'auto' },
  );
  const loadBalancerAssignIps = p.pick<AssignIpsMode>(
    'loadBalancerAssignIps',
    (t) => {
      if (t !== 'AllServices' && t !== 'RequestedServicesOnly')
        throw new RunConfigError(
          `${p.where('loadBalancerAssignIps')}: must be AllServices or RequestedServicesOnly, got ${JSON.stringify(t)}`,
        );
      return t;
    },
    { fromResource: lbResource ? () => lbResource.assignIps : undefined, otherwise: 'AllServices' },
  );
  return { loadBalancer, loadBalancerAssignIps };
}
