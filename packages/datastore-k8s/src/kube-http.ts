// The API server connection: a keep-alive HTTP client over a loaded kubeconfig (kube-config.ts:
// server, CA, client certificates, tokens, token files, exec credentials). Bodies are read and
// written with ipam-core's exact JSON codec: JSON.parse would round Calico's uint64 sequence
// numbers.
import type { ClientRequest, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { JsonValue } from '@netledger/ipam-core/adapter';
import { IpamError } from '@netledger/ipam-core';
import { parseJson, stringifyJson } from '@netledger/ipam-core/adapter';
import type { KubeConfig } from './kube-config.js';
import type { AttemptOutcome, RetryPolicy } from './request-retry.js';
import { DEFAULT_RETRY_POLICY, retryDelay } from './request-retry.js';
import type { TokenBucket } from './token-bucket.js';

/** Where the API server is and who we are to it. */
export interface KubeConnectionOptions {
  readonly requestTimeoutMs: number;
  /** Connections at once (default unlimited). */
  readonly maxSockets?: number;
  readonly limiter: TokenBucket;
  /** When a request is sent again (default {@link DEFAULT_RETRY_POLICY}). */
  readonly retry?: RetryPolicy;
  /** Waits between attempts (tests pass a fake). */
  readonly sleep?: (ms: number) => Promise<void>;
  /** In [0, 1), for the retries' jitter. */
  readonly random?: () => number;
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
  /** Attempts that were retried before this answer (a 429 or a read's 5xx), and the time waited. */
  readonly retried?: { readonly count: number; readonly waitedMs: number };
}

/** An open streaming response (a watch): its lines until the server ends it or `abort()`. */
interface KubeStream {
  readonly status: number;
  /** The body, when the status is not 200 (the stream is then empty). */
  readonly body: JsonValue | undefined;
  readonly lines: AsyncIterable<string>;
  abort(): void;
}

/** A request that got no HTTP answer (refused, reset, timed out). */
class TransportError extends Error {
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

const realSleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Creates the HTTP client for a loaded config. */
export function createKubeHttp(kc: KubeConfig, opts: KubeConnectionOptions): KubeHttp {
  const server = kc.server;
  const url = new URL(server);
  const secure = url.protocol === 'https:';
  let agent: HttpAgent | undefined;
  let closed = false;
  const policy = opts.retry ?? DEFAULT_RETRY_POLICY;
  const sleep = opts.sleep ?? realSleep;
  const random = opts.random ?? Math.random;

  // Credentials are applied per request: exec plugins and token files rotate tokens. The agent
  // takes the TLS settings, with an exec plugin's client certificate from its first credential.
  async function requestOptions(method: string, path: string, headers: OutgoingHttpHeaders) {
    const creds = await kc.credentials();
    const cert = creds.cert ?? kc.tls.cert;
    const key = creds.key ?? kc.tls.key;
    agent ??= secure
      ? new HttpsAgent({
          keepAlive: true,
          ...(opts.maxSockets !== undefined && { maxSockets: opts.maxSockets }),
          rejectUnauthorized: kc.tls.rejectUnauthorized,
          ...(kc.tls.ca !== undefined && { ca: kc.tls.ca }),
          ...(cert !== undefined && { cert }),
          ...(key !== undefined && { key }),
          ...(kc.tls.servername !== undefined && { servername: kc.tls.servername }),
        })
      : new HttpAgent({
          keepAlive: true,
          ...(opts.maxSockets !== undefined && { maxSockets: opts.maxSockets }),
        });
    return {
      method,
      protocol: url.protocol,
      hostname: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port || (secure ? 443 : 80),
      path: `${url.pathname.replace(/\/$/, '')}${path}`,
      agent,
      headers: {
        ...(creds.authorization !== undefined && { authorization: creds.authorization }),
        ...headers,
      },
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
      let waitedMs = 0;
      for (let retries = 0; ; retries++) {
        let outcome: AttemptOutcome;
        let result: { answer: KubeResponse } | { failure: TransportError };
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
          const retryAfter = res.headers['retry-after'];
          const answer: KubeResponse = {
            status: res.statusCode ?? 0,
            body: parseBody(text, res),
            ...(retries > 0 && { retried: { count: retries, waitedMs: Math.round(waitedMs) } }),
          };
          result = { answer };
          outcome = {
            answered: true,
            status: answer.status,
            ...(retryAfter !== undefined && { retryAfter }),
          };
        } catch (e) {
          const err = e as NodeJS.ErrnoException & { reusedSocket?: boolean };
          result = {
            failure:
              e instanceof TransportError ? e : new TransportError(err.message, { cause: e }),
          };
          outcome = {
            answered: false,
            ...(!(e instanceof TransportError) && err.code !== undefined && { code: err.code }),
            ...(err.reusedSocket === true && { reusedSocket: true }),
          };
        }
        const wait = retryDelay(
          { method: r.method, retries, waitedMs },
          { outcome, policy, random },
        );
        if (wait === undefined) {
          if ('answer' in result) return result.answer;
          if (retries > 0) {
            result.failure.message += ` (after ${retries} ${retries === 1 ? 'retry' : 'retries'})`;
          }
          throw result.failure;
        }
        await sleep(wait);
        waitedMs += wait;
        assertOpen();
        await opts.limiter.take();
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
