import type { ClientRequest, IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { EtcdKvError } from './etcd-kv-error.js';
import { GatewayUnreachableError, gatewayStatusError } from './gateway-error.js';
import { createJsonObjectSplitter } from './json-object-splitter.js';
import type { TlsMaterial } from './load-tls-material.js';

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
interface GatewayRequest {
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
interface GatewayStreamHandlers {
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
 * Reads a whole answer and calls `done` once: with its text, or with the error that cut it off.
 */
function readAnswer(
  endpoint: string,
  res: IncomingMessage,
  done: (error: EtcdKvError | undefined, text: string) => void,
): void {
  const chunks: Buffer[] = [];
  let finished = false;
  const finish = (error: EtcdKvError | undefined): void => {
    if (finished) return;
    finished = true;
    done(error, error ? '' : Buffer.concat(chunks).toString('utf8'));
  };
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => finish(undefined));
  res.on('error', (e) => finish(new GatewayUnreachableError(endpoint, e, true)));
  res.on('close', () => {
    if (!res.complete) {
      finish(new GatewayUnreachableError(endpoint, new Error('answer cut off'), true));
    }
  });
}

const closedError = (): EtcdKvError =>
  new EtcdKvError('etcd gateway client closed', { errorClass: 'closed' });

/**
 * Creates the HTTP client of the gateway transport over one keep-alive agent (TLS material from
 * `loadTlsMaterial` for `https`). Idle connections do not keep the process alive.
 */
export function createGatewayHttp(options: GatewayHttpOptions): GatewayHttp {
  // Loaded here, not on import: importing the package costs nothing until a store is created, and
  // a V8 start-up snapshot (the CNI plugin's) can hold this module, which node:http cannot be in.
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

  /**
   * Starts a POST. `fail` gets every error before an answer; `answer` gets the answer. The
   * request is destroyed (with `fail` called) when it does not connect in time.
   */
  const send = (
    request: GatewayRequest,
    answer: (res: IncomingMessage) => void,
    fail: (e: EtcdKvError) => void,
  ): ClientRequest => {
    const body = JSON.stringify(request.body);
    const url = new URL(request.path, request.endpoint);
    const req = (options.secure ? https : http).request(url, {
      method: 'POST',
      agent,
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        ...(request.token !== undefined && { authorization: request.token }),
      },
    });
    inFlight.add(req);
    let connected = false;
    let connectTimer: NodeJS.Timeout | undefined;
    req.on('socket', (socket: Socket) => {
      if (!socket.connecting) {
        connected = true; // a kept-alive connection
        return;
      }
      connectTimer = setTimeout(
        () => req.destroy(new Error(`no connection within ${options.connectTimeoutMs} ms`)),
        options.connectTimeoutMs,
      );
      socket.once(options.secure ? 'secureConnect' : 'connect', () => {
        connected = true;
        clearTimeout(connectTimer);
      });
    });
    req.on('response', (res) => {
      clearTimeout(connectTimer);
      answer(res);
    });
    req.on('error', (e) => {
      clearTimeout(connectTimer);
      fail(closed ? closedError() : new GatewayUnreachableError(request.endpoint, e, connected));
    });
    req.on('close', () => {
      clearTimeout(connectTimer);
      inFlight.delete(req);
    });
    if (closed) req.destroy(new Error('closed'));
    else req.end(body);
    return req;
  };

  return {
    post(request) {
      return new Promise((resolve, reject) => {
        let settled = false;
        const settle = (outcome: () => void): void => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          outcome();
        };
        const fail = (e: EtcdKvError): void => settle(() => reject(e));
        const timer = setTimeout(() => {
          // Sent (a slower connect fails first, see connectTimeoutMs): the outcome is unknown.
          const timeout = new Error(`request timed out after ${options.requestTimeoutMs} ms`);
          fail(new GatewayUnreachableError(request.endpoint, timeout, true));
          req.destroy();
        }, options.requestTimeoutMs);
        const req = send(
          request,
          (res) =>
            readAnswer(request.endpoint, res, (e, text) => {
              if (e) fail(e);
              else if (res.statusCode !== 200) {
                fail(gatewayStatusError(request.endpoint, res.statusCode ?? 0, text));
              } else {
                try {
                  const value: unknown = JSON.parse(text);
                  settle(() => resolve(value));
                } catch {
                  fail(
                    new EtcdKvError(`${request.endpoint} answered with invalid JSON`, {
                      errorClass: 'other',
                    }),
                  );
                }
              }
            }),
          fail,
        );
      });
    },

    stream(request, handlers) {
      let over = false;
      const end = (e: EtcdKvError): void => {
        if (over) return;
        over = true;
        handlers.onEnd(e);
        req.destroy();
      };
      const req = send(
        request,
        (res) => {
          if (res.statusCode !== 200) {
            readAnswer(request.endpoint, res, (e, text) =>
              end(e ?? gatewayStatusError(request.endpoint, res.statusCode ?? 0, text)),
            );
            return;
          }
          const splitter = createJsonObjectSplitter();
          res.setEncoding('utf8'); // a character cut between chunks is decoded whole
          res.on('data', (text: string) => {
            let objects: unknown[];
            try {
              objects = splitter.push(text);
            } catch (e) {
              const message = `${request.endpoint} sent a malformed stream: ${String(e)}`;
              end(new EtcdKvError(message, { errorClass: 'other' }));
              return;
            }
            for (const value of objects) {
              if (over) return;
              handlers.onObject(value);
            }
          });
          const lost = (e: Error): void =>
            end(new GatewayUnreachableError(request.endpoint, e, true));
          res.on('error', lost);
          res.on('close', () => lost(new Error('stream ended')));
        },
        end,
      );
      return {
        abort() {
          over = true;
          req.destroy();
        },
      };
    },

    close() {
      if (closed) return;
      closed = true;
      for (const req of inFlight) req.destroy(new Error('closed'));
      inFlight.clear();
      agent.destroy();
    },
  };
}
