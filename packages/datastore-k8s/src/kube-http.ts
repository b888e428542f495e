// The API server connection: @kubernetes/client-node's KubeConfig for the kubeconfig file or the
// in-cluster service account (server, CA, client certificates, tokens, exec and token-file
// credentials), and a keep-alive HTTP client of our own. The library's request path parses JSON
// with JSON.parse, which rounds Calico's uint64 sequence numbers; bodies here are read and written
// with ipam-core's exact JSON codec instead.
import type { ClientRequest, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import type { RequestOptions } from 'node:https';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import type { JsonValue } from '@netledger/ipam-core';
import { IpamError, parseJson, stringifyJson } from '@netledger/ipam-core';
import type { TokenBucket } from './token-bucket.js';

/** Where the API server is and who we are to it. */
export interface KubeConnectionOptions {
  /** Path of a kubeconfig file; without it, the in-cluster service-account config is used. */
  readonly kubeconfig?: string;
  /** A context of the kubeconfig other than its current one. */
  readonly context?: string;
  readonly requestTimeoutMs: number;
  readonly limiter: TokenBucket;
}

/** One API request. `query` values that are undefined are left out. */
export interface KubeRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly query?: Readonly<Record<string, string | undefined>>;
  readonly body?: unknown;
  /** Default `application/json`; merge patches say `application/merge-patch+json`. */
  readonly contentType?: string;
}

/** An answer: the HTTP status and the body (JSON parsed exactly, else the text). */
export interface KubeResponse {
  readonly status: number;
  readonly body: JsonValue | undefined;
}

/** An open streaming response (a watch): its lines until the server ends it or `abort()`. */
export interface KubeStream {
  readonly status: number;
  /** The body, when the status is not 200 (the stream is then empty). */
  readonly body: JsonValue | undefined;
  readonly lines: AsyncIterable<string>;
  abort(): void;
}

/** A request that got no HTTP answer (refused, reset, timed out). */
export class TransportError extends Error {
  override readonly name = 'TransportError';
}

/** The HTTP client the datastore uses. */
export interface KubeHttp {
  /** The API server URL, for messages. */
  readonly server: string;
  request(r: KubeRequest): Promise<KubeResponse>;
  stream(r: {
    path: string;
    query?: Readonly<Record<string, string | undefined>>;
  }): Promise<KubeStream>;
  close(): void;
}

/** Loads the kubeconfig (or the in-cluster config); throws `InvalidArgument` when unusable. */
export function loadKubeConfig(opts: { kubeconfig?: string; context?: string }): KubeConfig {
  const kc = new KubeConfig();
  const source = opts.kubeconfig ?? 'the in-cluster service account';
  try {
    if (opts.kubeconfig !== undefined) kc.loadFromFile(opts.kubeconfig);
    else {
      if (!process.env.KUBERNETES_SERVICE_HOST || !process.env.KUBERNETES_SERVICE_PORT) {
        throw new Error(
          'KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set (not in a pod?); pass a kubeconfig',
        );
      }
      kc.loadFromCluster();
    }
  } catch (e) {
    throw new IpamError(
      'InvalidArgument',
      `cannot load Kubernetes config from ${source}: ${e instanceof Error ? e.message : String(e)}`,
      { cause: e },
    );
  }
  if (opts.context !== undefined) {
    if (!kc.getContextObject(opts.context)) {
      throw new IpamError(
        'InvalidArgument',
        `kubeconfig ${source} has no context ${JSON.stringify(opts.context)} (it has: ${kc
          .getContexts()
          .map((c) => c.name)
          .join(', ')})`,
      );
    }
    kc.setCurrentContext(opts.context);
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster?.server) {
    throw new IpamError('InvalidArgument', `Kubernetes config ${source} names no cluster server`);
  }
  return kc;
}

function withQuery(path: string, query: KubeRequest['query']): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) q.set(k, v);
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

function parseBody(text: string, res: IncomingMessage): JsonValue | undefined {
  if (text === '') return undefined;
  if ((res.headers['content-type'] ?? '').includes('json')) {
    try {
      return parseJson(text);
    } catch {
      return text;
    }
  }
  return text;
}

const RETRYABLE_ON_REUSED = new Set(['ECONNRESET', 'EPIPE']);

/** Creates the HTTP client for a loaded config. */
export function createKubeHttp(kc: KubeConfig, opts: KubeConnectionOptions): KubeHttp {
  const server = kc.getCurrentCluster()!.server.replace(/\/$/, '');
  const url = new URL(server);
  const secure = url.protocol === 'https:';
  let agent: HttpAgent | undefined;
  let closed = false;

  // Credentials are applied per request: exec plugins and token files rotate tokens.
  async function requestOptions(method: string, path: string, headers: OutgoingHttpHeaders) {
    const o: RequestOptions = {};
    await kc.applyToHTTPSOptions(o);
    agent ??= secure
      ? new HttpsAgent({
          keepAlive: true,
          ...(o.ca !== undefined && { ca: o.ca }),
          ...(o.cert !== undefined && { cert: o.cert }),
          ...(o.key !== undefined && { key: o.key }),
          ...(o.rejectUnauthorized !== undefined && { rejectUnauthorized: o.rejectUnauthorized }),
          ...(o.servername !== undefined && { servername: o.servername }),
        })
      : new HttpAgent({ keepAlive: true });
    return {
      method,
      protocol: url.protocol,
      hostname: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port || (secure ? 443 : 80),
      path: `${url.pathname.replace(/\/$/, '')}${path}`,
      agent,
      ...(o.auth !== undefined && { auth: o.auth }),
      headers: { ...(o.headers as OutgoingHttpHeaders), ...headers },
    };
  }

  function send(
    r: { method: string; path: string; body?: string; contentType?: string },
    timeoutMs: number | undefined,
  ): Promise<{ req: ClientRequest; res: IncomingMessage }> {
    return (async () => {
      const headers: OutgoingHttpHeaders = { accept: 'application/json' };
      if (r.body !== undefined) {
        headers['content-type'] = r.contentType ?? 'application/json';
        headers['content-length'] = Buffer.byteLength(r.body);
      }
      const options = await requestOptions(r.method, r.path, headers);
      return new Promise<{ req: ClientRequest; res: IncomingMessage }>((resolve, reject) => {
        const req = (secure ? httpsRequest : httpRequest)(options, (res) => resolve({ req, res }));
        req.on('error', (e) => reject(Object.assign(e, { reusedSocket: req.reusedSocket })));
        if (timeoutMs !== undefined) {
          req.setTimeout(timeoutMs, () =>
            req.destroy(new TransportError(`no answer within ${timeoutMs} ms`)),
          );
        }
        req.end(r.body);
      });
    })();
  }

  async function readAll(req: ClientRequest, res: IncomingMessage): Promise<string> {
    const chunks: Buffer[] = [];
    try {
      for await (const c of res) chunks.push(c as Buffer);
    } catch (e) {
      req.destroy();
      throw e;
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  function assertOpen(): void {
    if (closed) throw new IpamError('Unavailable', 'datastore is closed');
  }

  return {
    server,
    async request(r) {
      assertOpen();
      await opts.limiter.take();
      const body = r.body === undefined ? undefined : stringifyJson(r.body);
      const path = withQuery(r.path, r.query);
      for (let attempt = 0; ; attempt++) {
        try {
          const { req, res } = await send(
            {
              method: r.method,
              path,
              ...(body !== undefined && { body }),
              ...(r.contentType && { contentType: r.contentType }),
            },
            opts.requestTimeoutMs,
          );
          const text = await readAll(req, res);
          return { status: res.statusCode ?? 0, body: parseBody(text, res) };
        } catch (e) {
          // A keep-alive socket the server closed while idle: safe to resend a read, once.
          const err = e as NodeJS.ErrnoException & { reusedSocket?: boolean };
          if (
            r.method === 'GET' &&
            attempt === 0 &&
            err.reusedSocket &&
            RETRYABLE_ON_REUSED.has(err.code ?? '')
          ) {
            continue;
          }
          if (e instanceof TransportError) throw e;
          throw new TransportError(err.message, { cause: e });
        }
      }
    },
    async stream(r) {
      assertOpen();
      await opts.limiter.take();
      let sent: { req: ClientRequest; res: IncomingMessage };
      try {
        sent = await send({ method: 'GET', path: withQuery(r.path, r.query) }, undefined);
      } catch (e) {
        throw new TransportError(e instanceof Error ? e.message : String(e), { cause: e });
      }
      const { req, res } = sent;
      const status = res.statusCode ?? 0;
      if (status !== 200) {
        const text = await readAll(req, res);
        return { status, body: parseBody(text, res), lines: (async function* () {})(), abort() {} };
      }
      let aborted = false;
      async function* lines(): AsyncGenerator<string> {
        let rest = '';
        try {
          for await (const chunk of res) {
            rest += (chunk as Buffer).toString('utf8');
            let nl: number;
            while ((nl = rest.indexOf('\n')) >= 0) {
              const line = rest.slice(0, nl).trim();
              rest = rest.slice(nl + 1);
              if (line) yield line;
            }
          }
        } catch (e) {
          if (aborted) return;
          throw new TransportError(e instanceof Error ? e.message : String(e), { cause: e });
        } finally {
          req.destroy();
        }
        if (rest.trim()) yield rest.trim();
      }
      return {
        status,
        body: undefined,
        lines: lines(),
        abort: () => {
          aborted = true;
          req.destroy();
        },
      };
    },
    close() {
      closed = true;
      agent?.destroy();
    },
  };
}
