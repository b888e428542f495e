import type { IncomingMessage } from 'node:http';
import type { EtcdKvError } from './etcd-kv-error.js';
import { GatewayUnreachableError } from './gateway-error.js';

/**
 * Reads a whole answer and calls `done` once: with its text, or with the error that cut it off.
 */
export function readAnswer(
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
