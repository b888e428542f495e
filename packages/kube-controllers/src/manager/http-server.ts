import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the HTTP endpoints answer from. */
export interface HttpEndpoints {
  /** The Prometheus text exposition and its content type. */
  metrics(): Promise<{ contentType: string; body: string }>;
  healthz(): { ok: boolean; body: string };
  readyz(): { ok: boolean; body: string };
}

/** A listening server. */
export interface HttpEndpointsServer {
  /** `host:port` it listens on (the port resolved when 0 was asked for). */
  readonly address: string;
  close(): Promise<void>;
}

/**
 * Serves `GET /metrics`, `/healthz` and `/readyz` (200 or 503 with a plain-text reason); anything
 * else is 404, any other method 405. Resolves once listening; rejects if the address is taken.
 */
export async function serveHttpEndpoints(
  endpoints: HttpEndpoints,
  listen: { readonly host: string; readonly port: number },
): Promise<HttpEndpointsServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    if (path === '/metrics') {
      endpoints.metrics().then(
        ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(body),
        (e: unknown) =>
          res
            .writeHead(500, { 'content-type': 'text/plain' })
            .end(`metrics failed: ${String(e)}\n`),
      );
      return;
    }
    const check =
      path === '/healthz'
        ? endpoints.healthz()
        : path === '/readyz'
          ? endpoints.readyz()
          : undefined;
    if (!check) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    res.writeHead(check.ok ? 200 : 503, { 'content-type': 'text/plain' }).end(check.body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const a = server.address() as AddressInfo;
  return {
    address: `${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
