import { EtcdKvError } from './etcd-kv-error.js';
import { GatewayUnreachableError, gatewayStatusError } from './gateway-error.js';
import type { GatewayRequest } from './gateway-http.js';
import { readAnswer } from './read-answer.js';
import type { StartGatewayRequest } from './start-gateway-request.js';

/**
 * Sends `request` and resolves the parsed JSON of a 200 answer. Rejects with
 * `GatewayUnreachableError` when no answer came within `requestTimeoutMs` (or none at all), with an
 * `EtcdKvError` classified from etcd's error body for another status, and for invalid JSON.
 */
export function postGatewayJson(
  start: StartGatewayRequest,
  request: GatewayRequest,
  requestTimeoutMs: number,
): Promise<unknown> {
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
      const timeout = new Error(`request timed out after ${requestTimeoutMs} ms`);
      fail(new GatewayUnreachableError(request.endpoint, timeout, true));
      req.destroy();
    }, requestTimeoutMs);
    const req = start(
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
}
