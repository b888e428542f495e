import { request } from 'node:http';
import type { ApplyReport, StartReport } from './device-daemon.js';
import type { DeviceErrorCode } from './device-error.js';
import { DeviceError } from './device-error.js';
import type { LeaseView, PoolView } from './views.js';

/** A client of the daemon's API over its unix socket. Errors come back as `DeviceError`s. */
export interface DeviceClient {
  apply(stateDir?: string): Promise<ApplyReport>;
  start(container: string): Promise<StartReport>;
  stop(container: string): Promise<{ container: string; leases: LeaseView[] }>;
  teardown(container: string): Promise<{ container: string; released: LeaseView[] }>;
  leases(): Promise<{ leases: LeaseView[] }>;
  pools(): Promise<{ pools: PoolView[] }>;
  health(): Promise<{ ok: boolean; revision: boolean; leases: number; running: string[] }>;
  metrics(): Promise<string>;
}

function call(
  socketPath: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      {
        socketPath,
        method,
        path,
        headers: payload === undefined ? {} : { 'content-type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      },
    );
    req.on('error', (e) =>
      reject(
        new DeviceError(
          'DaemonUnavailable',
          `cannot reach the daemon at ${socketPath}: ${e.message}`,
        ),
      ),
    );
    req.end(payload);
  });
}

/** Creates a client for the daemon listening on `socketPath`. */
export function createDeviceClient(opts: { readonly socketPath: string }): DeviceClient {
  async function json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const { status, text } = await call(opts.socketPath, method, path, body);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new DeviceError('DaemonUnavailable', `daemon answered ${status} with non-JSON`);
    }
    if (status >= 200 && status < 300) return parsed as T;
    const err = (parsed as { error?: { code?: DeviceErrorCode; message?: string } }).error;
    throw new DeviceError(
      err?.code ?? 'DaemonUnavailable',
      err?.message ?? `daemon answered ${status}`,
    );
  }
  const op = (name: string, verb: string) => `/v1/containers/${encodeURIComponent(name)}/${verb}`;
  return {
    apply: (stateDir) =>
      json('POST', '/v1/apply', stateDir === undefined ? {} : { state: stateDir }),
    start: (name) => json('POST', op(name, 'start')),
    stop: (name) => json('POST', op(name, 'stop')),
    teardown: (name) => json('POST', op(name, 'teardown')),
    leases: () => json('GET', '/v1/leases'),
    pools: () => json('GET', '/v1/pools'),
    health: () => json('GET', '/v1/health'),
    async metrics() {
      const { status, text } = await call(opts.socketPath, 'GET', '/metrics');
      if (status !== 200) throw new DeviceError('DaemonUnavailable', `daemon answered ${status}`);
      return text;
    },
  };
}
