// The HTTP transport: etcd's gRPC gateway (`/v3/kv/range`, `/v3/kv/txn`, `/v3/kv/put`,
// `/v3/watch`, `/v3/auth/authenticate` on the client port) over node:http(s). It loads no gRPC
// code, which is the point: a one-shot process (the CNI plugin) pays for a plain request, not for
// loading grpc-js and connecting, many times more CPU (docs/benchmarks.md, `cni`). Only type
// imports from etcd-kv.ts; no etcd3.
import type { EtcdKv, EtcdKvOptions, KvWatch } from './etcd-kv.js';
import { EtcdKvError } from './etcd-kv-error.js';
import { GatewayUnreachableError, isInvalidAuthToken } from './gateway-error.js';
import { createGatewayHttp } from './gateway-http.js';
import {
  decodeAuthenticateResponse,
  decodePutResponse,
  decodeRangeResponse,
  decodeTxnResponse,
  decodeWatchMessage,
  encodePutRequest,
  encodeRangeRequest,
  encodeTxnRequest,
  encodeWatchCreateRequest,
} from './gateway-json.js';
import { classifyEtcdError } from './map-etcd-error.js';

/**
 * The gateway transport. Requests go to one endpoint at a time: a connection that cannot be made
 * (refused, not within its share of `dialTimeoutMs`) moves on to the next endpoint at once,
 * because nothing was sent; any other failure without an answer, or an etcd answer worth retrying
 * (no leader), moves the next call to the next endpoint and is left to the session's retry.
 * With `username`, it authenticates once, sends the token with every request, and authenticates
 * again once when etcd says the token is invalid (it expired).
 */
export function createGatewayKv(options: EtcdKvOptions): EtcdKv {
  const { endpoints, username } = options;
  const client = createGatewayHttp({
    secure: endpoints[0]!.startsWith('https:'),
    tls: options.tls,
    requestTimeoutMs: options.requestTimeoutMs,
    // A round over every endpoint fits in the dial timeout, so a black-holed first member does
    // not use it all up.
    connectTimeoutMs: Math.max(
      1,
      Math.min(options.requestTimeoutMs, options.dialTimeoutMs / endpoints.length),
    ),
  });
  let current = 0;
  let closed = false;
  let token: Promise<string> | undefined;

  /** The next call goes to the endpoint after `index`, unless another call moved on already. */
  const moveOn = (index: number): void => {
    if (current === index) current = (index + 1) % endpoints.length;
  };

  async function send(path: string, body: unknown, auth: string | undefined): Promise<unknown> {
    for (let tried = 1; ; tried++) {
      const index = current;
      try {
        return await client.post({ endpoint: endpoints[index]!, path, body, token: auth });
      } catch (e) {
        if (classifyEtcdError(e) === 'retry') moveOn(index);
        const unsent = e instanceof GatewayUnreachableError && !e.requestSent;
        if (!unsent || tried >= endpoints.length) throw e;
      }
    }
  }

  const authenticate = (): Promise<string> => {
    if (token) return token;
    const pending = send(
      '/v3/auth/authenticate',
      { name: username, password: options.password ?? '' },
      undefined,
    ).then(decodeAuthenticateResponse);
    token = pending;
    // A failed authentication is not remembered: the next call tries again.
    pending.catch(() => {
      if (token === pending) token = undefined;
    });
    return pending;
  };
  const forget = (stale: Promise<string>): void => {
    if (token === stale) token = undefined;
  };

  async function call(path: string, body: unknown): Promise<unknown> {
    if (closed) throw new EtcdKvError('etcd gateway client closed', { errorClass: 'closed' });
    if (username === undefined) return send(path, body, undefined);
    const used = authenticate();
    try {
      return await send(path, body, await used);
    } catch (e) {
      // etcd checks the token before it applies anything, so re-sending cannot apply twice.
      if (!isInvalidAuthToken(e)) throw e;
      forget(used);
      return send(path, body, await authenticate());
    }
  }

  return {
    range: async (req) => decodeRangeResponse(await call('/v3/kv/range', encodeRangeRequest(req))),
    txn: async (req) => decodeTxnResponse(await call('/v3/kv/txn', encodeTxnRequest(req))),
    put: async (req) => decodePutResponse(await call('/v3/kv/put', encodePutRequest(req))),

    watch(req, handlers): KvWatch {
      let over = false;
      let abort: (() => void) | undefined;
      const finish = (): void => {
        over = true;
        abort?.();
      };
      const stop = (e: unknown, how: 'disconnected' | 'canceled'): void => {
        if (over) return;
        finish();
        if (how === 'disconnected') handlers.onDisconnected(e);
        else handlers.onCanceled(e);
      };
      // Retryable failures end the stream (the caller resumes); others cancel the watch.
      const ended = (e: unknown): void =>
        stop(e, classifyEtcdError(e) === 'retry' ? 'disconnected' : 'canceled');

      const open = async (): Promise<void> => {
        const usedToken = username === undefined ? undefined : authenticate();
        let auth: string | undefined;
        try {
          // Awaited even without auth, so no handler runs before watch() returns.
          auth = await usedToken;
        } catch (e) {
          ended(e);
          return;
        }
        if (over) return;
        const index = current;
        const stream = client.stream(
          {
            endpoint: endpoints[index]!,
            path: '/v3/watch',
            body: encodeWatchCreateRequest(req),
            token: auth,
          },
          {
            onObject(value) {
              if (over) return;
              let message;
              try {
                message = decodeWatchMessage(value);
              } catch (e) {
                stop(e, 'canceled');
                return;
              }
              switch (message.kind) {
                case 'created':
                  return;
                case 'response':
                  handlers.onResponse(message.response);
                  return;
                case 'canceled':
                  if (usedToken && isInvalidAuthToken(message.error)) {
                    // The token expired: transient, the caller's next watch authenticates again.
                    forget(usedToken);
                    const expired = new EtcdKvError(message.error.message, {
                      errorClass: 'retry',
                      cause: message.error,
                    });
                    stop(expired, 'disconnected');
                    return;
                  }
                  stop(message.error, 'canceled');
                  return;
                case 'error':
                  if (classifyEtcdError(message.error) === 'retry') moveOn(index);
                  ended(message.error);
                  return;
              }
            },
            onEnd(e) {
              if (classifyEtcdError(e) === 'retry') moveOn(index);
              ended(e);
            },
          },
        );
        abort = () => stream.abort();
        if (over) stream.abort();
      };
      void open();
      return { cancel: finish };
    },

    close() {
      closed = true;
      client.close();
    },
  };
}
