// `netledger-node --metrics-listen HOST:PORT`: the agent's /metrics, /healthz and /readyz on TCP,
// for Prometheus and the kubelet's probes (the socket, root's only, serves them too). It serves
// nothing else: no CNI request is ever taken over TCP.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerText, serveProbe } from './probe-routes.js';
import type { ProbeSources } from './probe-routes.js';

/** Options of {@link startMetricsServer}. */
export interface MetricsServerOptions extends ProbeSources {
  readonly host: string;
  /** 0 picks a free port (see {@link MetricsServer.address}). */
  readonly port: number;
}

/** A listening metrics endpoint. */
export interface MetricsServer {
  /** Where it listens (`HOST:PORT`, an IPv6 host in brackets). */
  readonly address: string;
  /** Stops listening and closes its connections. */
  close(): Promise<void>;
}

/**
 * Listens on `host`:`port` and serves GET /metrics, /healthz and /readyz (probe-routes.ts); any
 * other path is 404, any other method 405. Rejects when it cannot listen (the port in use, an
 * address not on this host), leaving nothing open.
 */
export async function startMetricsServer(o: MetricsServerOptions): Promise<MetricsServer> {
  const server = createServer({ requestTimeout: 10_000, keepAlive: false }, (req, res) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    if (req.method !== 'GET') return answerText(res, 405, 'method not allowed\n');
    void serveProbe(path, res, o).then((served) => {
      if (!served) answerText(res, 404, 'not found\n');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: o.host, port: o.port }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { address, port } = server.address() as AddressInfo;
  return {
    address: address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
