// The HTTP transport: etcd's gRPC gateway (`/v3/kv/range`, `/v3/kv/txn`, `/v3/kv/put`,
// `/v3/watch`, `/v3/auth/authenticate` on the client port) over node:http(s). It loads no gRPC
// code, which is the point: a one-shot process (the CNI plugin) pays for a plain request, not for
// loading grpc-js and connecting, many times more CPU (docs/benchmarks.md, `cni`). Only type
// imports from etcd-kv.ts; no etcd3.
import type { EtcdKv, EtcdKvOptions } from './etcd-kv.js';
import { EtcdKvError } from './etcd-kv-error.js';
import { createGatewayAuth } from './gateway-auth.js';
import { createGatewayEndpoints } from './gateway-endpoints.js';
import { isInvalidAuthToken } from './gateway-error.js';
import { createGatewayHttp } from './gateway-http.js';
import {
  decodePutResponse,
  decodeRangeResponse,
  decodeTxnResponse,
  encodePutRequest,
  encodeRangeRequest,
  encodeTxnRequest,
} from './gateway-json.js';
import { openGatewayWatch } from './gateway-watch.js';

/**
 * The gateway transport. Requests go to one endpoint at a time: a connection that cannot be made
 * (refused, not within its share of `dialTimeoutMs`) moves on to the next endpoint at once,
 * because nothing was sent; any other failure without an answer, or an etcd answer worth retrying
 * (no leader), moves the next call to the next endpoint and is left to the session's retry.
 * With `username`, it authenticates once, sends the token with every request, and authenticates
 * again once when etcd says the token is invalid (it expired).
 */
export function createGatewayKv(options: EtcdKvOptions): EtcdKv {
  const { username } = options;
  const client = createGatewayHttp({
    secure: options.endpoints[0]!.startsWith('https:'),
    tls: options.tls,
    requestTimeoutMs: options.requestTimeoutMs,
    // A round over every endpoint fits in the dial timeout, so a black-holed first member does
    // not use it all up.
    connectTimeoutMs: Math.max(
      1,
      Math.min(options.requestTimeoutMs, options.dialTimeoutMs / options.endpoints.length),
    ),
  });
  const endpoints = createGatewayEndpoints(client, options.endpoints);
  const auth =
    username === undefined
      ? undefined
      : createGatewayAuth(endpoints, { username, password: options.password });
  let closed = false;

  async function call(path: string, body: unknown): Promise<unknown> {
    if (closed) throw new EtcdKvError('etcd gateway client closed', { errorClass: 'closed' });
    if (!auth) return endpoints.send({ path, body, token: undefined });
    const used = auth.token();
    try {
      return await endpoints.send({ path, body, token: await used });
    } catch (e) {
      // etcd checks the token before it applies anything, so re-sending cannot apply twice.
      if (!isInvalidAuthToken(e)) throw e;
      auth.forget(used);
      return endpoints.send({ path, body, token: await auth.token() });
    }
  }

  return {
    range: async (req) => decodeRangeResponse(await call('/v3/kv/range', encodeRangeRequest(req))),
    txn: async (req) => decodeTxnResponse(await call('/v3/kv/txn', encodeTxnRequest(req))),
    put: async (req) => decodePutResponse(await call('/v3/kv/put', encodePutRequest(req))),
    watch: (req, handlers) => openGatewayWatch({ client, endpoints, auth }, req, handlers),
    close() {
      closed = true;
      client.close();
    },
  };
}
