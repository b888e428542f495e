// The API server client the datastore uses: requests through the rate limiter, sent again as
// client-go would (request-retry.ts decides, cockatiel waits: retry-attempts.ts), and watch
// streams. The transport (kube-transport.ts) owns the connection and the credentials.
import type { JsonValue } from '@netledger/ipam-core/adapter';
import { IpamError } from '@netledger/ipam-core';
import { stringifyJson } from '@netledger/ipam-core/adapter';
import type { KubeConfig } from './kube-config.js';
import type { KubeStream } from './kube-stream.js';
import { openKubeStream } from './kube-stream.js';
import type { Attempt, AttemptState } from './retry-attempts.js';
import { retryAttempts } from './retry-attempts.js';
import type { RetryPolicy } from './request-retry.js';
import { DEFAULT_RETRY_POLICY } from './request-retry.js';
import type { TokenBucket } from './token-bucket.js';
import type { KubeTransport, SentRequest } from './kube-transport.js';
import {
  TransportError,
  createKubeTransport,
  parseBody,
  readAll,
  withQuery,
} from './kube-transport.js';

/** Where the API server is and who we are to it. */
export interface KubeConnectionOptions {
  readonly requestTimeoutMs: number;
  /** Connections at once (default unlimited). */
  readonly maxSockets?: number;
  readonly limiter: TokenBucket;
  /** When a request is sent again (default {@link DEFAULT_RETRY_POLICY}). */
  readonly retry?: RetryPolicy;
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

type AttemptResult = { answer: KubeResponse } | { failure: TransportError };

/** Sends `r` once: its answer, or the transport failure, with the outcome the retry policy judges. */
async function attemptOnce(
  transport: KubeTransport,
  r: SentRequest & { readonly timeoutMs: number },
  state: AttemptState,
): Promise<Attempt<AttemptResult>> {
  try {
    const { req, res } = await transport.send(r, r.timeoutMs);
    const text = await readAll(req, res);
    const retryAfter = res.headers['retry-after'];
    const answer: KubeResponse = {
      status: res.statusCode ?? 0,
      body: parseBody(text, res),
      ...(state.retries > 0 && {
        retried: { count: state.retries, waitedMs: Math.round(state.waitedMs) },
      }),
    };
    const outcome = {
      answered: true as const,
      status: answer.status,
      ...(retryAfter !== undefined && { retryAfter }),
    };
    return { result: { answer }, outcome };
  } catch (e) {
    const err = e as NodeJS.ErrnoException & { reusedSocket?: boolean };
    const failure = e instanceof TransportError ? e : new TransportError(err.message, { cause: e });
    const outcome = {
      answered: false as const,
      ...(!(e instanceof TransportError) && err.code !== undefined && { code: err.code }),
      ...(err.reusedSocket === true && { reusedSocket: true }),
    };
    return { result: { failure }, outcome };
  }
}

/** Creates the HTTP client for a loaded config. */
export function createKubeHttp(kc: KubeConfig, opts: KubeConnectionOptions): KubeHttp {
  const transport = createKubeTransport(kc, { maxSockets: opts.maxSockets });
  const closing = new AbortController();
  const policy = opts.retry ?? DEFAULT_RETRY_POLICY;
  const random = opts.random ?? Math.random;

  function assertOpen(): void {
    if (closing.signal.aborted) throw new IpamError('Unavailable', 'datastore is closed');
  }

  return {
    server: kc.server,
    async request(r) {
      assertOpen();
      await opts.limiter.take();
      const body = r.body === undefined ? undefined : stringifyJson(r.body);
      const sent = {
        method: r.method,
        path: withQuery(r.path, r.query),
        timeoutMs: opts.requestTimeoutMs,
        ...(body !== undefined && { body }),
        ...(r.contentType && { contentType: r.contentType }),
      };
      const last = await retryAttempts(
        async (state) => {
          if (state.retries > 0) {
            assertOpen();
            await opts.limiter.take();
          }
          return attemptOnce(transport, sent, state);
        },
        { method: r.method, policy, random, signal: closing.signal },
      );
      // A retry was due, but the client closed: as the retry would have said.
      if (last.wait !== undefined) assertOpen();
      if ('answer' in last.result) return last.result.answer;
      const { failure } = last.result;
      if (last.retries > 0) {
        failure.message += ` (after ${last.retries} ${last.retries === 1 ? 'retry' : 'retries'})`;
      }
      throw failure;
    },
    async stream(r) {
      assertOpen();
      await opts.limiter.take();
      return openKubeStream(transport, withQuery(r.path, r.query));
    },
    close() {
      closing.abort();
      transport.destroy();
    },
  };
}
