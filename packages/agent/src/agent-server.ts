// The agent's HTTP/1.0 endpoint on its unix socket: POST /v1/cni (the plugin's requests; the
// format is agent-protocol.ts), GET /v1/status (JSON), and the probe routes (probe-routes.ts):
// GET /metrics (Prometheus text), /healthz, /readyz. The routes are route-agent-request.ts.
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { listenPrivately, prepareSocketPath, removeSocket } from './agent-socket.js';
import { routeAgentRequest } from './route-agent-request.js';
import type { AgentRoutes } from './route-agent-request.js';

/** Options of {@link startAgentServer}. */
export interface AgentServerOptions extends Omit<AgentRoutes, 'pending' | 'stopping'> {
  readonly socketPath: string;
}

/** A listening agent. */
export interface AgentServer {
  /** CNI requests being served now. */
  inFlight(): number;
  /**
   * Stops taking connections (the socket is removed at once, so clients fall back), then waits up
   * to `drainMs` for the requests in flight to be answered; resolves with how many were left.
   */
  stop(drainMs: number): Promise<number>;
}

/** The listening endpoint and what stopping it needs. */
interface Endpoint {
  readonly server: Server;
  readonly socketPath: string;
  /** The socket's inode, so that only the socket this endpoint made is removed. */
  readonly ino: number;
  readonly pending: Set<Promise<unknown>>;
}

/** Closes the socket, drains the requests in flight for at most `drainMs`, drops the rest. */
async function stopEndpoint(e: Endpoint, drainMs: number): Promise<number> {
  const closed = new Promise<void>((resolve) => e.server.close(() => resolve()));
  await removeSocket(e.socketPath, e.ino);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, drainMs);
    timer.unref();
  });
  await Promise.race([Promise.allSettled([...e.pending]), deadline]);
  clearTimeout(timer);
  const left = e.pending.size;
  e.server.closeAllConnections();
  await closed;
  return left;
}

/**
 * Prepares the socket (agent-socket.ts: mode 0600; its directory created 0700, or an existing one
 * left as it is when no other user can replace the socket in it) and serves on it. A malformed
 * request (not the agent protocol, an unknown path or method, a body over 1 MiB) is refused with
 * a 4xx before anything is parsed as a CNI request, so it touches no state; the client then runs
 * the command itself.
 */
export async function startAgentServer(o: AgentServerOptions): Promise<AgentServer> {
  const pending = new Set<Promise<unknown>>();
  let stopping = false;
  const routes: AgentRoutes = { ...o, pending, stopping: () => stopping };
  const server = createServer(
    { maxHeaderSize: 16 * 1024, requestTimeout: 30_000, headersTimeout: 10_000, keepAlive: false },
    (req, res) => void routeAgentRequest(req, res, routes),
  );
  await prepareSocketPath(o.socketPath);
  const ino = await listenPrivately(server, o.socketPath);
  return {
    inFlight: () => pending.size,
    async stop(drainMs) {
      stopping = true;
      return stopEndpoint({ server, socketPath: o.socketPath, ino, pending }, drainMs);
    },
  };
}
