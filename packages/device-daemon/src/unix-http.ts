import { createConnection } from 'node:net';
import { DeviceError } from './device-error.js';

/** An HTTP answer: status and body text. */
export interface HttpAnswer {
  readonly status: number;
  readonly body: string;
}

/**
 * One HTTP/1.1 request over a unix socket (`Connection: close`), on `node:net` alone: `node:http`
 * costs a client process more start-up than its whole request (and cannot be in a Node 20 start-up
 * snapshot). Reads the answer to the end; understands `Content-Length` and chunked bodies. Rejects
 * with `DaemonUnavailable` when the socket cannot be reached or the answer is not HTTP.
 */
export function requestOverUnixSocket(args: {
  readonly socketPath: string;
  readonly method: string;
  readonly path: string;
  readonly body?: string;
}): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const payload = args.body === undefined ? undefined : Buffer.from(args.body);
    const head = [
      `${args.method} ${args.path} HTTP/1.1`,
      'Host: netledger-device',
      'Connection: close',
      ...(payload === undefined
        ? []
        : ['Content-Type: application/json', `Content-Length: ${payload.length}`]),
      '',
      '',
    ].join('\r\n');
    const chunks: Buffer[] = [];
    let connected = false;
    const socket = createConnection({ path: args.socketPath }, () => {
      connected = true;
      // Not end(): Node's HTTP server drops a request whose client half-closes before the answer.
      // `Connection: close` makes the daemon close the connection once it has answered.
      socket.write(payload === undefined ? head : Buffer.concat([Buffer.from(head), payload]));
    });
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', (e) => {
      reject(
        new DeviceError(
          'DaemonUnavailable',
          connected
            ? `connection to the daemon at ${args.socketPath} failed: ${e.message}`
            : `cannot reach the daemon at ${args.socketPath}: ${e.message}`,
        ),
      );
    });
    socket.on('end', () => {
      try {
        resolve(parseAnswer(Buffer.concat(chunks)));
      } catch (e) {
        reject(e instanceof Error ? e : new Error(String(e)));
      }
    });
  });
}

/** Parses a complete HTTP/1.1 response. Throws `DaemonUnavailable` when it is not one. */
export function parseAnswer(raw: Buffer): HttpAnswer {
  const bad = (why: string): never => {
    throw new DeviceError('DaemonUnavailable', `the daemon's answer is unreadable: ${why}`);
  };
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return bad(raw.length === 0 ? 'empty' : 'no end of headers');
  const lines = raw.subarray(0, end).toString('latin1').split('\r\n');
  const status = /^HTTP\/1\.[01] ([0-9]{3})/.exec(lines[0] ?? '');
  if (status === null) return bad(`status line ${JSON.stringify((lines[0] ?? '').slice(0, 40))}`);
  const headers = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0)
      headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  let body = raw.subarray(end + 4);
  if (headers.get('transfer-encoding')?.toLowerCase() === 'chunked') body = dechunk(body, bad);
  else {
    const length = headers.get('content-length');
    if (length !== undefined) {
      if (!/^[0-9]+$/.test(length) || Number(length) > body.length) return bad('short body');
      body = body.subarray(0, Number(length));
    }
  }
  return { status: Number(status[1]), body: body.toString('utf8') };
}

function dechunk(body: Buffer, bad: (why: string) => never): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = body.indexOf('\r\n', at);
    if (eol < 0) return bad('truncated chunk size');
    const size = parseInt(body.subarray(at, eol).toString('latin1'), 16);
    if (!Number.isSafeInteger(size) || size < 0) return bad('bad chunk size');
    if (size === 0) return Buffer.concat(parts);
    if (eol + 2 + size > body.length) return bad('truncated chunk');
    parts.push(body.subarray(eol + 2, eol + 2 + size));
    at = eol + 4 + size;
  }
}
