import { EtcdKvError } from './etcd-kv-error.js';
import { GatewayUnreachableError, gatewayStatusError } from './gateway-error.js';
import type { GatewayRequest, GatewayStreamHandlers } from './gateway-http.js';
import { createJsonObjectSplitter } from './json-object-splitter.js';
import { readAnswer } from './read-answer.js';
import type { StartGatewayRequest } from './start-gateway-request.js';

/**
 * Sends `request` whose answer is a stream of JSON objects, handing each to `handlers.onObject`.
 * The stream ends once with `handlers.onEnd` (lost connection, end, error status, malformed
 * stream); `abort()` ends it silently.
 */
export function streamGatewayJson(
  start: StartGatewayRequest,
  request: GatewayRequest,
  handlers: GatewayStreamHandlers,
): { abort(): void } {
  let over = false;
  const end = (e: EtcdKvError): void => {
    if (over) return;
    over = true;
    handlers.onEnd(e);
    req.destroy();
  };
  const req = start(
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
      const lost = (e: Error): void => end(new GatewayUnreachableError(request.endpoint, e, true));
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
}
