import type { ClientRequest } from 'node:http';
import type { EtcdKvError } from './etcd-kv-error.js';
import type { TlsMaterial } from './load-tls-material.js';
import { postGatewayJson } from './post-gateway-json.js';
import { startGatewayRequest } from './start-gateway-request.js';
import { streamGatewayJson } from './stream-gateway-json.js';

/** What {@link createGatewayHttp} needs. */
export interface GatewayHttpOptions {
  /** `https` endpoints (with `tls`, or the system roots) instead of `http`. */
  readonly secure: boolean;
  readonly tls: TlsMaterial | undefined;
  /** Deadline of one request, from sending to the end of the answer (not for streams). */
  readonly requestTimeoutMs: number;
  /** How long a new connection may take before the endpoint counts as unreachable. */
  readonly connectTimeoutMs: number;
}

/** One POST to one endpoint. */
export interface GatewayRequest {
  /** `http(s)://host:port`. */
  readonly endpoint: string;
  /** e.g. `/v3/kv/range`. */
  readonly path: string;
  /** Sent as JSON. */
  readonly body: unknown;
  /** etcd auth token, sent as the `Authorization` header. */
  readonly token?: string | undefined;
}

/** Where a streaming answer goes. */
export interface GatewayStreamHandlers {
  /** Each JSON object of the answer, as it completes. */
  onObject(value: unknown): void;
  /** The stream is over: the connection failed or ended, or etcd answered with an error status. */
  onEnd(error: EtcdKvError): void;
}

/** JSON over HTTP(S) POSTs with keep-alive connections. */
export interface GatewayHttp {
  /**
   * Sends a request and resolves the parsed JSON of a 200 answer. Rejects with
   * `GatewayUnreachableError` when no answer came (refused, reset, timed out) and with an
   * `EtcdKvError` classified from etcd's error body otherwise.
   */
  post(request: GatewayRequest): Promise<unknown>;
  /** Sends a request whose answer is a stream of JSON objects; `abort()` ends it silently. */
  stream(request: GatewayRequest, handlers: GatewayStreamHandlers): { abort(): void };
  /** Aborts everything in flight (it fails `closed`) and closes idle connections. */
  close(): void;
}

/**
 * Creates the HTTP client of the gateway transport over one keep-alive agent (TLS material from
 * `loadTlsMaterial` for `https`). Idle connections do not keep the process alive.
 */
export function createGatewayHttp(options: GatewayHttpOptions): GatewayHttp {
  // Loaded here, not on import (see start-gateway-request.ts).
  const http = process.getBuiltinModule('node:http');
  const https = process.getBuiltinModule('node:https');
  const agent = options.secure
    ? new https.Agent({
        keepAlive: true,
        ...(options.tls?.ca && { ca: options.tls.ca }),
        ...(options.tls?.cert && { cert: options.tls.cert }),
        ...(options.tls?.key && { key: options.tls.key }),
      })
    : new http.Agent({ keepAlive: true });
  const inFlight = new Set<ClientRequest>();
  let closed = false;
  const start = startGatewayRequest({
    secure: options.secure,
    agent,
    connectTimeoutMs: options.connectTimeoutMs,
    inFlight,
    isClosed: () => closed,
  });

  return {
    post: (request) => postGatewayJson(start, request, options.requestTimeoutMs),
    stream: (request, handlers) => streamGatewayJson(start, request, handlers),
    close() {
      if (closed) return;
      closed = true;
      for (const req of inFlight) req.destroy(new Error('closed'));
      inFlight.clear();
      agent.destroy();
    },
  };
}
