import type { Agent as HttpAgent, ClientRequest, IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { EtcdKvError } from './etcd-kv-error.js';
import { GatewayUnreachableError } from './gateway-error.js';
import type { GatewayRequest } from './gateway-http.js';

/** Starts a POST: `answer` gets the answer, `fail` every error before one. */
export type StartGatewayRequest = (
  request: GatewayRequest,
  answer: (res: IncomingMessage) => void,
  fail: (e: EtcdKvError) => void,
) => ClientRequest;

/** What every request of one client shares. */
export interface GatewayConnection {
  readonly secure: boolean;
  readonly agent: HttpAgent;
  readonly connectTimeoutMs: number;
  /** The requests not yet closed (the client's `close()` destroys them). */
  readonly inFlight: Set<ClientRequest>;
  isClosed(): boolean;
}

/** The error of a request the client's `close()` ended. */
const closedError = (): EtcdKvError =>
  new EtcdKvError('etcd gateway client closed', { errorClass: 'closed' });

/**
 * Returns the function that starts a JSON POST over `connection`. A request that does not connect
 * within `connectTimeoutMs` is destroyed (and fails unreachable, nothing sent); once the client is
 * closed, every request fails `closed`.
 */
export function startGatewayRequest(connection: GatewayConnection): StartGatewayRequest {
  // Loaded here, not on import: importing the package costs nothing until a store is created, and
  // a V8 start-up snapshot (the CNI plugin's) can hold this module, which node:http cannot be in.
  const http = process.getBuiltinModule('node:http');
  const https = process.getBuiltinModule('node:https');
  const { secure, agent, connectTimeoutMs, inFlight } = connection;
  return (request, answer, fail) => {
    const body = JSON.stringify(request.body);
    const url = new URL(request.path, request.endpoint);
    const req = (secure ? https : http).request(url, {
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
        () => req.destroy(new Error(`no connection within ${connectTimeoutMs} ms`)),
        connectTimeoutMs,
      );
      socket.once(secure ? 'secureConnect' : 'connect', () => {
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
      const closed = connection.isClosed();
      fail(closed ? closedError() : new GatewayUnreachableError(request.endpoint, e, connected));
    });
    req.on('close', () => {
      clearTimeout(connectTimer);
      inFlight.delete(req);
    });
    if (connection.isClosed()) req.destroy(new Error('closed'));
    else req.end(body);
    return req;
  };
}
