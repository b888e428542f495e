import type { ServerResponse } from 'node:http';

/** What the probe routes read. */
export interface ProbeSources {
  /** The Prometheus text (GET /metrics). */
  readonly metrics: () => Promise<string>;
  /** Whether the agent is ready: its store view is synced (GET /readyz). */
  readonly ready: () => boolean;
}

/** Answers `body` as plain text; headers set on `res` before (`setHeader`) go with it. */
export function answerText(res: ServerResponse, status: number, body: string): void {
  if (!res.hasHeader('content-type')) res.setHeader('content-type', 'text/plain; charset=utf-8');
  res.writeHead(status, { 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/**
 * Serves a GET of /metrics (Prometheus text), /healthz (200 while the process serves: liveness)
 * or /readyz (200 when ready, else 503: readiness); resolves false for another path, answering
 * nothing. A metrics collection that fails is answered 500 with its message.
 */
export async function serveProbe(
  path: string,
  res: ServerResponse,
  from: ProbeSources,
): Promise<boolean> {
  switch (path) {
    case '/metrics': {
      let body: string;
      try {
        body = await from.metrics();
      } catch (e) {
        answerText(res, 500, `collecting metrics failed: ${(e as Error).message}\n`);
        return true;
      }
      res.setHeader('content-type', 'text/plain; version=0.0.4; charset=utf-8');
      answerText(res, 200, body);
      return true;
    }
    case '/healthz':
      answerText(res, 200, 'ok\n');
      return true;
    case '/readyz':
      if (from.ready()) answerText(res, 200, 'ok\n');
      else answerText(res, 503, 'not synced\n');
      return true;
    default:
      return false;
  }
}
