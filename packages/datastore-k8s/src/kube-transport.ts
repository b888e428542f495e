// One HTTP exchange with the API server over a keep-alive agent built from a loaded kubeconfig
// (kube-config.ts: server, CA, client certificates, tokens, token files, exec credentials). Bodies
// are parsed with ipam-core's exact JSON codec: JSON.parse would round Calico's uint64 sequence
// numbers.
import type { ClientRequest, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { JsonValue } from '@netledger/ipam-core/adapter';
import { parseJson } from '@netledger/ipam-core/adapter';
import type { KubeConfig } from './kube-config.js';

/** A request that got no HTTP answer (refused, reset, timed out). */
export class TransportError extends Error {
  override readonly name = 'TransportError';
}

/** What one exchange sends. */
export interface SentRequest {
  readonly method: string;
  readonly path: string;
  readonly body?: string;
  readonly contentType?: string;
}

/** The connection to one API server: sends requests, and is destroyed on close. */
export interface KubeTransport {
  readonly server: string;
  /**
   * Sends `r` and resolves with the response once its headers arrive; rejects on a socket error
   * (flagged `reusedSocket` when it went out on a kept-alive connection) or, with a
   * {@link TransportError}, when no answer comes within `timeoutMs`.
   */
  send(
    r: SentRequest,
    timeoutMs: number | undefined,
  ): Promise<{ req: ClientRequest; res: IncomingMessage }>;
  /** Closes the kept-alive connections; requests in flight fail. */
  destroy(): void;
}

/** `path` with the query's defined values. */
export function withQuery(
  path: string,
  query: Readonly<Record<string, string | undefined>> | undefined,
): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) q.set(k, v);
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

/** A response body: JSON parsed exactly when the server says JSON (else the text); empty is undefined. */
export function parseBody(text: string, res: IncomingMessage): JsonValue | undefined {
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

/** The whole body of `res` as text; a failed read destroys the request and rethrows. */
export async function readAll(req: ClientRequest, res: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  try {
    for await (const c of res) chunks.push(c as Buffer);
  } catch (e) {
    req.destroy();
    throw e;
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Creates the transport for a loaded config; the agent is made at the first request. */
export function createKubeTransport(
  kc: KubeConfig,
  opts: { readonly maxSockets?: number | undefined },
): KubeTransport {
  const url = new URL(kc.server);
  const secure = url.protocol === 'https:';
  let agent: HttpAgent | undefined;

  const makeAgent = (cert: string | undefined, key: string | undefined): HttpAgent =>
    secure
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

  // Credentials are applied per request: exec plugins and token files rotate tokens. The agent
  // takes the TLS settings, with an exec plugin's client certificate from its first credential.
  async function requestOptions(method: string, path: string, headers: OutgoingHttpHeaders) {
    const creds = await kc.credentials();
    agent ??= makeAgent(creds.cert ?? kc.tls.cert, creds.key ?? kc.tls.key);
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

  async function send(r: SentRequest, timeoutMs: number | undefined) {
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
  }

  return {
    server: kc.server,
    send,
    destroy: () => agent?.destroy(),
  };
}
