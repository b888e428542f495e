// The agent's routes: POST /v1/cni, GET /v1/status and the probe routes.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AGENT_CNI_PATH, FALLBACK_HEADER, FALLBACK_STATUS } from './agent-protocol.js';
import { answerText as text, serveProbe } from './probe-routes.js';
import { serveCniRequest } from './serve-cni-request.js';
import type { CniServing } from './serve-cni-request.js';

/** What the routes serve from, and the endpoint's state they share. */
export interface AgentRoutes extends CniServing {
  /** The status document (GET /v1/status) and whether the agent is ready (GET /readyz). */
  readonly status: () => { readonly ready: boolean } & Record<string, unknown>;
  /** The Prometheus text (GET /metrics). */
  readonly metrics: () => Promise<string>;
  /** The CNI requests being served; each is added while it runs. */
  readonly pending: Set<Promise<unknown>>;
  /** Whether the endpoint is stopping: new CNI requests are sent back to their client. */
  readonly stopping: () => boolean;
}

/** Starts serving a CNI request, tracked in `pending` until it is done; it never rejects. */
function startCniRequest(req: IncomingMessage, res: ServerResponse, routes: AgentRoutes): void {
  if (routes.stopping()) {
    res.setHeader(FALLBACK_HEADER, 'the agent is stopping');
    text(res, FALLBACK_STATUS, 'the agent is stopping\n');
    return;
  }
  const work = serveCniRequest(req, res, routes).catch((e: unknown) => {
    // serveAgentRequest never throws; this is the last line of defence.
    routes.log.error(`serving a request failed: ${(e as Error).stack ?? String(e)}`);
    if (!res.headersSent) text(res, 500, 'internal error\n');
    else res.destroy();
  });
  routes.pending.add(work);
  void work.finally(() => routes.pending.delete(work));
}

/**
 * Answers one request on the agent's endpoint: a CNI request is started (and tracked), GET
 * /v1/status answers the status document with the requests in flight, the probe paths their
 * probes; another method is 405, another path 404.
 */
export async function routeAgentRequest(
  req: IncomingMessage,
  res: ServerResponse,
  routes: AgentRoutes,
): Promise<void> {
  const path = (req.url ?? '').split('?')[0];
  if (req.method === 'POST' && path === AGENT_CNI_PATH) return startCniRequest(req, res, routes);
  if (req.method !== 'GET') return text(res, 405, 'method not allowed\n');
  if (path === '/v1/status') {
    const body = `${JSON.stringify({ ...routes.status(), inFlight: routes.pending.size })}\n`;
    res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
    return;
  }
  const probes = { metrics: routes.metrics, ready: () => routes.status().ready };
  if (!(await serveProbe(path ?? '', res, probes))) text(res, 404, 'not found\n');
}
