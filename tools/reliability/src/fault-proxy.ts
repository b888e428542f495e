import http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';

/** What the proxy answers instead of forwarding, while a storm is on. */
type InjectedStatus = 409 | 429 | 500;

/** Counts of what the proxy did. */
interface ProxyCounts {
  forwarded: number;
  injected: Record<InjectedStatus, number>;
  /** Of `injected`, the answers to writes (any method but GET). */
  injectedWrites: Record<InjectedStatus, number>;
  watchesCut: number;
}

/** A fault-injecting HTTP proxy in front of the API server. */
export interface FaultProxy {
  /** `http://127.0.0.1:<port>`: the server clients are given. */
  readonly url: string;
  readonly counts: ProxyCounts;
  /**
   * Answers a fraction of requests with these statuses instead of forwarding them (409 only for
   * writes, as the API server would): a Status body, and `Retry-After: 1` with 429. Watch requests
   * are included. `undefined` ends the storm.
   */
  storm(
    s: { readonly statuses: readonly InjectedStatus[]; readonly rate: number } | undefined,
  ): void;
  /** Drops the connection of every watch in progress (as a load balancer restarting does). */
  cutWatches(): number;
  /** Resolves once `n` requests in all have been answered with an injected status. */
  whenInjected(n: number): Promise<void>;
  /** Resolves once a watch is in progress through the proxy. */
  whenWatching(): Promise<void>;
  close(): Promise<void>;
}

const REASONS: Record<InjectedStatus, string> = {
  409: 'Conflict',
  429: 'TooManyRequests',
  500: 'InternalError',
};

/**
 * Starts a plain-HTTP proxy on loopback that forwards every request to `upstream` (https, trusting
 * `caPem`) and, on demand, injects error storms and cuts watches. `random` picks the injected
 * requests (seeded by the caller, so a run repeats).
 */
export async function startFaultProxy(o: {
  readonly upstream: string;
  readonly caPem: string;
  readonly random: () => number;
}): Promise<FaultProxy> {
  const counts: ProxyCounts = {
    forwarded: 0,
    injected: { 409: 0, 429: 0, 500: 0 },
    injectedWrites: { 409: 0, 429: 0, 500: 0 },
    watchesCut: 0,
  };
  let current: { statuses: readonly InjectedStatus[]; rate: number } | undefined;
  const watches = new Set<ServerResponse>();
  const waiters = new Set<() => void>();
  const notify = (): void => {
    for (const w of [...waiters]) w();
  };
  const until = (done: () => boolean): Promise<void> =>
    new Promise((resolve) => {
      const check = (): void => {
        if (!done()) return;
        waiters.delete(check);
        resolve();
      };
      waiters.add(check);
      check();
    });
  const injectedTotal = (): number =>
    counts.injected[409] + counts.injected[429] + counts.injected[500];
  const sockets = new Set<Socket>();
  const agent = new https.Agent({ keepAlive: true, ca: o.caPem });
  const up = new URL(o.upstream);

  const inject = (req: IncomingMessage, res: ServerResponse): boolean => {
    if (!current || o.random() >= current.rate) return false;
    const write = req.method !== 'GET';
    const choices = current.statuses.filter((s) => s !== 409 || write);
    const status = choices[Math.floor(o.random() * choices.length)];
    if (status === undefined) return false;
    counts.injected[status]++;
    if (write) counts.injectedWrites[status]++;
    notify();
    res.writeHead(status, {
      'content-type': 'application/json',
      ...(status === 429 && { 'retry-after': '1' }),
    });
    res.end(
      JSON.stringify({
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        reason: REASONS[status],
        code: status,
        message: `injected by the reliability suite's proxy (${status})`,
      }),
    );
    // Drain the request body (a write's object), never forwarded.
    req.resume();
    return true;
  };

  const server = http.createServer((req, res) => {
    if (inject(req, res)) return;
    counts.forwarded++;
    const isWatch = /[?&]watch=(1|true)/.test(req.url ?? '');
    const upstreamReq = https.request(
      {
        protocol: up.protocol,
        hostname: up.hostname,
        port: up.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: up.host },
        agent: isWatch ? new https.Agent({ ca: o.caPem }) : agent,
      },
      (upstreamRes) => {
        res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
        // A watch's headers come before any event, which may be long in coming.
        res.flushHeaders();
        if (isWatch) {
          watches.add(res);
          notify();
          res.once('close', () => {
            watches.delete(res);
            upstreamRes.destroy();
          });
        }
        upstreamRes.pipe(res);
        upstreamRes.once('error', () => res.destroy());
      },
    );
    upstreamReq.once('error', () => {
      // The API server is down (restarting): the client sees its connection drop.
      res.destroy();
    });
    req.pipe(upstreamReq);
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    storm: (s) => {
      current = s;
    },
    cutWatches: () => {
      const n = watches.size;
      for (const res of watches) res.socket?.destroy();
      counts.watchesCut += n;
      return n;
    },
    whenInjected: (n) => until(() => injectedTotal() >= n),
    whenWatching: () => until(() => watches.size > 0),
    close: async () => {
      for (const s of sockets) s.destroy();
      agent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
