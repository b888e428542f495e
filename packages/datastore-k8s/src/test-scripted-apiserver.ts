// A scripted stand-in for the API server on loopback, for the HTTP client's retry tests: each
// request is recorded and answered by the next scripted step (a status with headers and body, or
// a cut connection); past the script, the last step repeats.
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';

/** One scripted answer. `body: 'echo'` answers the request's own body with a resourceVersion. */
export type ScriptedAnswer =
  | {
      readonly status: number;
      readonly headers?: Readonly<Record<string, string>>;
      readonly body?: unknown;
    }
  | { readonly cut: true };

/** A request the server received. */
interface ReceivedRequest {
  readonly method: string;
  readonly url: string;
  readonly body: string;
}

/** The running stand-in. */
export interface ScriptedApiserver {
  readonly url: string;
  readonly received: ReceivedRequest[];
  /** Writes a kubeconfig naming this server (plain HTTP, a token) into `dir`; returns its path. */
  kubeconfigIn(dir: string): string;
  close(): Promise<void>;
}

/** Starts the stand-in answering with `script`, one step per request; `onRequest` is told each one (1, 2, ...) before it is answered. */
export async function startScriptedApiserver(
  script: readonly ScriptedAnswer[],
  hooks: { readonly onRequest?: (n: number) => void } = {},
): Promise<ScriptedApiserver> {
  const received: ReceivedRequest[] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({ method: req.method ?? '', url: req.url ?? '', body });
      hooks.onRequest?.(received.length);
      const step = script[Math.min(received.length - 1, script.length - 1)];
      if (step === undefined || 'cut' in step) {
        req.socket.destroy();
        return;
      }
      const answer =
        step.body === 'echo'
          ? echo(body, received.length)
          : step.body === undefined
            ? statusBody(step.status)
            : JSON.stringify(step.body);
      res.writeHead(step.status, { 'content-type': 'application/json', ...step.headers });
      res.end(answer);
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    kubeconfigIn: (dir) => writeKubeconfig(dir, url),
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Writes a kubeconfig naming `url` (plain HTTP, a token) into `dir`; returns its path. */
export function writeKubeconfig(dir: string, url: string): string {
  const path = join(dir, 'kubeconfig');
  writeFileSync(
    path,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: url } }],
      users: [{ name: 'u', user: { token: 'tok' } }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'x',
    }),
  );
  return path;
}

function statusBody(status: number): string {
  return JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    code: status,
    reason: status === 429 ? 'TooManyRequests' : 'InternalError',
    message: `scripted ${status}`,
  });
}

function echo(body: string, n: number): string {
  const object = JSON.parse(body) as { metadata?: Record<string, unknown> };
  return JSON.stringify({
    ...object,
    metadata: { ...object.metadata, resourceVersion: String(100 + n), uid: `uid-${n}` },
  });
}
