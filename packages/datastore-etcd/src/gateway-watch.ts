import type { KvWatch, KvWatchHandlers, KvWatchRequest } from './etcd-kv.js';
import { EtcdKvError } from './etcd-kv-error.js';
import type { GatewayAuth } from './gateway-auth.js';
import type { GatewayEndpoints } from './gateway-endpoints.js';
import { isInvalidAuthToken } from './gateway-error.js';
import type { GatewayHttp } from './gateway-http.js';
import { decodeWatchMessage, encodeWatchCreateRequest } from './gateway-json.js';
import { classifyEtcdError } from './map-etcd-error.js';

/** What a gateway watch runs over. */
export interface GatewayWatchDeps {
  readonly client: GatewayHttp;
  readonly endpoints: GatewayEndpoints;
  /** Undefined without `username`. */
  readonly auth: GatewayAuth | undefined;
}

/** How one watch stream ends: lost (the caller resumes) or canceled by etcd. */
type Stop = (e: unknown, how: 'disconnected' | 'canceled') => void;

/** Hands one object of the stream to `handlers`, or ends the watch with `stop`. */
function onWatchObject(
  value: unknown,
  stream: { readonly index: number; readonly usedToken: Promise<string> | undefined },
  ctx: { readonly deps: GatewayWatchDeps; readonly handlers: KvWatchHandlers; readonly stop: Stop },
): void {
  const { deps, handlers, stop } = ctx;
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
      if (stream.usedToken && isInvalidAuthToken(message.error)) {
        // The token expired: transient, the caller's next watch authenticates again.
        deps.auth?.forget(stream.usedToken);
        const expired = new EtcdKvError(message.error.message, {
          errorClass: 'retry',
          cause: message.error,
        });
        stop(expired, 'disconnected');
        return;
      }
      stop(message.error, 'canceled');
      return;
    case 'error': {
      // The gateway lost its stream to etcd: retryable ends the stream (the caller resumes).
      const retryable = classifyEtcdError(message.error) === 'retry';
      if (retryable) deps.endpoints.moveOn(stream.index);
      stop(message.error, retryable ? 'disconnected' : 'canceled');
      return;
    }
  }
}

/**
 * Opens a `POST /v3/watch` stream on the current endpoint (authenticated when `deps.auth` is
 * set). Retryable failures end it with `onDisconnected` (the caller resumes) and move the next call
 * to the next endpoint; others with `onCanceled`. No handler runs before this returns, nor after
 * `cancel()`.
 */
export function openGatewayWatch(
  deps: GatewayWatchDeps,
  req: KvWatchRequest,
  handlers: KvWatchHandlers,
): KvWatch {
  let over = false;
  let abort: (() => void) | undefined;
  const finish = (): void => {
    over = true;
    abort?.();
  };
  const stop: Stop = (e, how) => {
    if (over) return;
    finish();
    if (how === 'disconnected') handlers.onDisconnected(e);
    else handlers.onCanceled(e);
  };
  // Retryable failures end the stream (the caller resumes); others cancel the watch.
  const ended = (e: unknown): void =>
    stop(e, classifyEtcdError(e) === 'retry' ? 'disconnected' : 'canceled');

  const open = async (): Promise<void> => {
    const usedToken = deps.auth?.token();
    let token: string | undefined;
    try {
      // Awaited even without auth, so no handler runs before watch() returns.
      token = await usedToken;
    } catch (e) {
      ended(e);
      return;
    }
    if (over) return;
    const index = deps.endpoints.current();
    const stream = deps.client.stream(
      {
        endpoint: deps.endpoints.url(index),
        path: '/v3/watch',
        body: encodeWatchCreateRequest(req),
        token,
      },
      {
        onObject(value) {
          if (!over) onWatchObject(value, { index, usedToken }, { deps, handlers, stop });
        },
        onEnd(e) {
          if (classifyEtcdError(e) === 'retry') deps.endpoints.moveOn(index);
          ended(e);
        },
      },
    );
    abort = () => stream.abort();
    if (over) stream.abort();
  };
  void open();
  return { cancel: finish };
}
