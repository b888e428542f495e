import type { ApplyReport, HealthReport, StartReport } from './daemon-reports.js';
import type { ErrorBody } from './device-error.js';
import { DeviceError } from './device-error.js';
import { requestOverUnixSocket } from './unix-http.js';
import type { LeaseView, PoolView } from './views.js';

/** A client of the daemon's API over its unix socket. Errors come back as `DeviceError`s. */
export interface DeviceClient {
  /**
   * Applies the revision in `stateDir` (default: the daemon's `--state`). `opts.force` applies it
   * even when it drops leases of running containers or bridges with ports (else `DropsInUse`).
   */
  apply(stateDir?: string, opts?: { readonly force?: boolean }): Promise<ApplyReport>;
  start(container: string): Promise<StartReport>;
  stop(container: string): Promise<{ container: string; leases: LeaseView[] }>;
  teardown(container: string): Promise<{ container: string; released: LeaseView[] }>;
  leases(): Promise<{ leases: LeaseView[] }>;
  pools(): Promise<{ pools: PoolView[] }>;
  health(): Promise<HealthReport>;
  metrics(): Promise<string>;
}

/**
 * Creates a client for the daemon listening on `socketPath`. Every call is one request on a fresh
 * connection; a refusal comes back as the daemon's `DeviceError` (`code`, `message`, `field`), an
 * unreachable or unreadable daemon as `DaemonUnavailable`.
 */
export function createDeviceClient(opts: { readonly socketPath: string }): DeviceClient {
  async function json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const answer = await requestOverUnixSocket({
      socketPath: opts.socketPath,
      method,
      path,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    let parsed: unknown;
    try {
      parsed = JSON.parse(answer.body);
    } catch {
      throw new DeviceError('DaemonUnavailable', `daemon answered ${answer.status} with non-JSON`);
    }
    if (answer.status >= 200 && answer.status < 300) return parsed as T;
    const err = (parsed as { error?: Partial<ErrorBody> }).error;
    throw new DeviceError(
      err?.code ?? 'DaemonUnavailable',
      err?.message ?? `daemon answered ${answer.status}`,
      { field: err?.field },
    );
  }
  const op = (name: string, verb: string) => `/v1/containers/${encodeURIComponent(name)}/${verb}`;
  return {
    apply: (stateDir, opts) =>
      json('POST', '/v1/apply', {
        ...(stateDir === undefined ? {} : { state: stateDir }),
        ...(opts?.force === true ? { force: true } : {}),
      }),
    start: (name) => json('POST', op(name, 'start')),
    stop: (name) => json('POST', op(name, 'stop')),
    teardown: (name) => json('POST', op(name, 'teardown')),
    leases: () => json('GET', '/v1/leases'),
    pools: () => json('GET', '/v1/pools'),
    health: () => json('GET', '/v1/health'),
    async metrics() {
      const answer = await requestOverUnixSocket({
        socketPath: opts.socketPath,
        method: 'GET',
        path: '/metrics',
      });
      if (answer.status !== 200)
        throw new DeviceError('DaemonUnavailable', `daemon answered ${answer.status}`);
      return answer.body;
    },
  };
}
