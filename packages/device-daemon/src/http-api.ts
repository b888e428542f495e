import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { DeviceDaemon } from './device-daemon.js';
import type { DeviceErrorCode } from './device-error.js';
import { DeviceError, toErrorBody } from './device-error.js';
import { describeJsonType } from './json-value.js';
import type { Logger } from './logger.js';
import type { RevisionFiles } from './revision.js';

/** The HTTP status of each error code. */
function statusOf(code: DeviceErrorCode): number {
  switch (code) {
    case 'BadRequest':
    case 'InvalidDeviceJson':
    case 'InvalidPool':
    case 'UnsupportedPoolType':
    case 'PoolConflict':
    case 'InvalidRunJson':
    case 'InvalidLxcConfig':
    case 'InvalidTemplateArgs':
      return 400;
    case 'UnknownContainer':
      return 404;
    case 'UnknownPool':
    case 'BakedLxcNet':
    case 'StaticOutsideSubnet':
    case 'StaticNotHostAddress':
    case 'StaticInUse':
    case 'PoolExhausted':
    case 'NoRevision':
    case 'RevisionRefused':
    case 'RouteConflict':
    case 'DropsInUse':
      return 409;
    case 'LeaseStoreCorrupt':
    case 'HostFailure':
    case 'DaemonUnavailable':
      return 500;
  }
}

const MAX_BODY = 64 * 1024;

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  let text = '';
  for await (const chunk of req) {
    text += String(chunk);
    if (text.length > MAX_BODY) throw new DeviceError('BadRequest', 'request body too large');
  }
  if (text === '') return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new DeviceError('BadRequest', 'request body is not JSON');
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new DeviceError('BadRequest', 'request body must be an object');
  return v as Record<string, unknown>;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  sendText(res, status, { text: JSON.stringify(body) + '\n', type: 'application/json' });
}

function sendText(
  res: ServerResponse,
  status: number,
  body: { readonly text: string; readonly type: string },
): void {
  res.writeHead(status, {
    'content-type': body.type,
    'content-length': Buffer.byteLength(body.text),
  });
  res.end(body.text);
}

const CONTAINER_OP = /^\/v1\/containers\/([^/]+)\/(start|stop|teardown)$/;

/**
 * The daemon's local HTTP/JSON API (to be bound to a unix socket): `POST /v1/apply {"state",
 * "force"}` (`force`: a JSON boolean, default false; see {@link DeviceDaemon.apply}),
 * `POST /v1/containers/<name>/{start,stop,teardown}`, `GET /v1/leases`, `GET /v1/pools`,
 * `GET /v1/health`, `GET /metrics`. Errors are `{"error": ErrorBody}` (`code`, `message`, and
 * `field` when known) with a status from {@link statusOf}.
 */
export function createHttpApi(opts: {
  readonly daemon: DeviceDaemon;
  readonly loadRevision: (stateDir: string) => Promise<RevisionFiles>;
  readonly defaultStateDir: string | undefined;
  readonly logger: Logger;
}): Server {
  const { daemon } = opts;
  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://local');
    const path = url.pathname;
    const method = req.method ?? 'GET';
    if (method === 'GET' && path === '/v1/health') return send(res, 200, daemon.health());
    if (method === 'GET' && path === '/metrics')
      return sendText(res, 200, {
        text: await daemon.metrics(),
        type: daemon.metricsContentType,
      });
    if (method === 'GET' && path === '/v1/leases')
      return send(res, 200, { leases: daemon.leases() });
    if (method === 'GET' && path === '/v1/pools') return send(res, 200, { pools: daemon.pools() });
    if (method === 'POST' && path === '/v1/apply') {
      const body = await readJson(req);
      const state = body['state'] ?? opts.defaultStateDir;
      if (typeof state !== 'string' || state === '')
        throw new DeviceError('BadRequest', 'apply needs "state": a state directory');
      const force = body['force'] === undefined ? false : body['force'];
      if (typeof force !== 'boolean')
        throw new DeviceError(
          'BadRequest',
          `apply's "force" must be true or false, not ${describeJsonType(force)}`,
        );
      let files: RevisionFiles;
      try {
        files = await opts.loadRevision(state);
      } catch (e) {
        throw new DeviceError(
          'BadRequest',
          `cannot read state directory ${state}: ${(e as Error).message}`,
        );
      }
      return send(res, 200, await daemon.apply(files, { force }));
    }
    const m = CONTAINER_OP.exec(path);
    if (method === 'POST' && m) {
      let name: string;
      try {
        name = decodeURIComponent(m[1] ?? '');
      } catch {
        throw new DeviceError('BadRequest', 'malformed container name in the path');
      }
      switch (m[2]) {
        case 'start':
          return send(res, 200, await daemon.start(name));
        case 'stop':
          return send(res, 200, await daemon.stop(name));
        default:
          return send(res, 200, await daemon.teardown(name));
      }
    }
    throw new DeviceError('BadRequest', `no route ${method} ${path}`);
  }
  return createServer((req, res) => {
    route(req, res).catch((e: unknown) => {
      const err =
        e instanceof DeviceError
          ? e
          : new DeviceError('HostFailure', (e as Error).message, { cause: e });
      if (!(e instanceof DeviceError))
        opts.logger.log('error', 'request failed', { error: String(e) });
      send(res, statusOf(err.code), { error: toErrorBody(err) });
    });
  });
}
