import http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { createConditionWaiters } from './condition-waiters.js';
import type { ConditionWaiters } from './condition-waiters.js';
import { forwardToUpstream } from './forward-to-upstream.js';
import type { Upstream } from './forward-to-upstream.js';
import { pickInjectedStatus, writeInjectedStatus } from './injected-status.js';
import type { InjectedStatus, Storm } from './injected-status.js';

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
  storm(s: Storm | undefined): void;
  /** Drops the connection of every watch in progress (as a load balancer restarting does). */
  cutWatches(): number;
  /** Resolves once `n` requests in all have been answered with an injected status. */
  whenInjected(n: number): Promise<void>;
  /** Resolves once a watch is in progress through the proxy. */
  whenWatching(): Promise<void>;
  close(): Promise<void>;
}

/** The proxy's state, shared by its request handler and its controls. */
interface ProxyState {
  readonly counts: ProxyCounts;
  storm: Storm | undefined;
  readonly watches: Set<ServerResponse>;
  readonly waiters: ConditionWaiters;
  readonly random: () => number;
  readonly upstream: Upstream;
}

/** Answers `req` with an injected status if the storm picks it (counted); else forwards it. */
function handle(state: ProxyState, req: IncomingMessage, res: ServerResponse): void {
  const write = req.method !== 'GET';
  const status = pickInjectedStatus(state.storm, write, state.random);
  if (status !== undefined) {
    state.counts.injected[status]++;
    if (write) state.counts.injectedWrites[status]++;
    state.waiters.notify();
    writeInjectedStatus(res, status);
    // Drain the request body (a write's object), never forwarded.
    req.resume();
    return;
  }
  state.counts.forwarded++;
  forwardToUpstream(req, res, {
    upstream: state.upstream,
    onWatch: (watch) => {
      state.watches.add(watch);
      state.waiters.notify();
      watch.once('close', () => state.watches.delete(watch));
    },
  });
}

/** The controls of a listening proxy (see {@link FaultProxy}). */
function controls(
  state: ProxyState,
  server: http.Server,
  sockets: Set<Socket>,
): Omit<FaultProxy, 'url'> {
  const { counts, watches, waiters } = state;
  const injectedTotal = (): number =>
    counts.injected[409] + counts.injected[429] + counts.injected[500];
  return {
    counts,
    storm: (s) => {
      state.storm = s;
    },
    cutWatches: () => {
      const n = watches.size;
      for (const res of watches) res.socket?.destroy();
      counts.watchesCut += n;
      return n;
    },
    whenInjected: (n) => waiters.until(() => injectedTotal() >= n),
    whenWatching: () => waiters.until(() => watches.size > 0),
    close: async () => {
      for (const s of sockets) s.destroy();
      state.upstream.agent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

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
  const state: ProxyState = {
    counts: {
      forwarded: 0,
      injected: { 409: 0, 429: 0, 500: 0 },
      injectedWrites: { 409: 0, 429: 0, 500: 0 },
      watchesCut: 0,
    },
    storm: undefined,
    watches: new Set(),
    waiters: createConditionWaiters(),
    random: o.random,
    upstream: {
      url: new URL(o.upstream),
      caPem: o.caPem,
      agent: new https.Agent({ keepAlive: true, ca: o.caPem }),
    },
  };
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => handle(state, req, res));
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, ...controls(state, server, sockets) };
}
