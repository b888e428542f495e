// The agent's HTTP/1.0 endpoint on its unix socket: POST /v1/cni (the plugin's requests; the
// format is agent-protocol.ts), GET /v1/status (JSON), and the probe routes (probe-routes.ts):
// GET /metrics (Prometheus text), /healthz, /readyz.
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  AGENT_CNI_PATH,
  AGENT_MAX_REQUEST_BYTES,
  FALLBACK_HEADER,
  FALLBACK_STATUS,
  answerResponse,
  decodeAgentRequest,
} from './agent-protocol.js';
import type { AgentOutput, AgentRequest } from './agent-protocol.js';
import type { RequestLabels, RequestOutcome } from './agent-metrics.js';
import { listenPrivately, prepareSocketPath, removeSocket } from './agent-socket.js';
import { answerText as text, serveProbe } from './probe-routes.js';

/**
 * What serving one request came to: an answer, the client sent back to run it itself, or not run
 * at all (its client went away before it started; nothing was done).
 */
type ServedRequest =
  | {
      readonly kind: 'answer';
      readonly output: AgentOutput;
      /**
       * Present when the answer still holds the host lock (an ADD): called once after the answer
       * was written, saying whether it reached the client; resolves with what was undone, for
       * the log.
       */
      readonly settle?: (delivered: boolean) => Promise<string | undefined>;
    }
  | { readonly kind: 'fallback'; readonly reason: string }
  | { readonly kind: 'not-run'; readonly reason: string };

/** Where the endpoint logs. */
interface AgentLog {
  debug(msg: string): void;
  warning(msg: string): void;
  error(msg: string): void;
}

/** Options of {@link startAgentServer}. */
export interface AgentServerOptions {
  readonly socketPath: string;
  /** Serves one CNI request; `signal` aborts when the client hangs up first. */
  readonly serve: (request: AgentRequest, signal: AbortSignal) => Promise<ServedRequest>;
  /** The status document (GET /v1/status) and whether the agent is ready (GET /readyz). */
  readonly status: () => { readonly ready: boolean } & Record<string, unknown>;
  /** The Prometheus text (GET /metrics). */
  readonly metrics: () => Promise<string>;
  /** Called once per CNI request with what became of it (and its CNI code when it failed). */
  readonly onRequest: (labels: RequestLabels, ms: number) => void;
  readonly log: AgentLog;
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

/** The CNI error code of a failed answer (its stdout's `code`), or undefined. */
function cniCodeOf(output: AgentOutput): number | undefined {
  if (output.exitCode === 0) return undefined;
  try {
    const code = (JSON.parse(output.stdout) as { code?: unknown }).code;
    return typeof code === 'number' ? code : undefined;
  } catch {
    return undefined;
  }
}

const code = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | undefined)?.code;

/**
 * Writes a served request's answer; resolves whether the client's socket took it: false when the
 * client went away first (its connection closed or ended: the clients never half-close), or the
 * write failed because it had. A 'finish' alone proves nothing: a write the socket refused still
 * calls back, so the socket's own error state decides.
 */
function writeAnswer(
  res: ServerResponse,
  output: AgentOutput,
  gone: AbortSignal,
): Promise<boolean> {
  const socket = res.socket;
  if (gone.aborted || res.destroyed || !socket || socket.destroyed || !socket.writable)
    return Promise.resolve(false);
  const { headers, body } = answerResponse(output);
  return new Promise((resolve) => {
    res.once('close', () => resolve(res.writableFinished && !socket.errored));
    res.writeHead(200, headers);
    res.end(body, () => resolve(!socket.errored));
  });
}

/** The body, or undefined after answering 413 for one over the limit. */
async function readBody(req: IncomingMessage, res: ServerResponse): Promise<Buffer | undefined> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > AGENT_MAX_REQUEST_BYTES) {
    text(res, 413, `a request is at most ${AGENT_MAX_REQUEST_BYTES} bytes\n`);
    return undefined;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > AGENT_MAX_REQUEST_BYTES) {
      text(res, 413, `a request is at most ${AGENT_MAX_REQUEST_BYTES} bytes\n`);
      return undefined;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * Prepares the socket (agent-socket.ts: mode 0600; its directory created 0700, or an existing one
 * left as it is when no other user can replace the socket in it) and serves on it. A malformed request (not the agent protocol, an unknown path or method, a body
 * over 1 MiB) is refused with a 4xx before anything is parsed as a CNI request, so it touches no
 * state; the client then runs the command itself.
 */
export async function startAgentServer(o: AgentServerOptions): Promise<AgentServer> {
  const pending = new Set<Promise<unknown>>();
  let stopping = false;

  async function serveCni(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const client = String(req.headers['user-agent'] ?? 'unknown').slice(0, 64);
    let command = 'unknown';
    // Listening from the start: a client gone before its request is read is a client gone.
    const gone = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) gone.abort();
    });
    const done = (
      outcome: RequestOutcome,
      { exit, why, cniCode }: { exit?: number; why?: string; cniCode?: number } = {},
    ): void => {
      const ms = performance.now() - started;
      const parts = [exit !== undefined && `exit ${exit}`, why].filter(
        (x) => typeof x === 'string',
      );
      const detail = parts.length > 0 ? ` (${parts.join('; ')})` : '';
      const line = `${command} from ${client}: ${outcome}${detail} in ${ms.toFixed(1)} ms`;
      // A client that went away is worth a line at any level; the rest is for debugging.
      if (outcome === 'abandoned' || outcome === 'not-run') o.log.warning(line);
      else o.log.debug(line);
      o.onRequest({ command, client, outcome, ...(cniCode !== undefined && { cniCode }) }, ms);
    };
    let body: Buffer | undefined;
    try {
      body = await readBody(req, res);
    } catch (e) {
      if (!gone.signal.aborted && !req.destroyed && code(e) !== 'ECONNRESET') throw e;
      return done('abandoned', {
        why: 'the client closed its connection mid-request; nothing done',
      });
    }
    if (body === undefined) return done('refused');
    let request: AgentRequest;
    try {
      request = decodeAgentRequest(body);
    } catch (e) {
      text(res, 400, `${(e as Error).message}\n`);
      return done('refused');
    }
    command = String(request.env['CNI_COMMAND'] ?? '').slice(0, 16) || 'none';
    const result = await o.serve(request, gone.signal);
    if (result.kind === 'not-run') return done('not-run', { why: result.reason });
    if (result.kind === 'fallback') {
      if (gone.signal.aborted) return done('abandoned', { why: 'the client went away' });
      res.setHeader(FALLBACK_HEADER, result.reason.replace(/[^\x20-\x7e]/g, '?'));
      text(res, FALLBACK_STATUS, `${result.reason}\n`);
      return done('fallback', { why: result.reason });
    }
    let delivered = false;
    let undone: string | undefined;
    try {
      delivered = await writeAnswer(res, result.output, gone.signal);
    } finally {
      undone = await result.settle?.(delivered);
    }
    if (!delivered) {
      const what = undone ?? 'nothing to undo';
      return done('abandoned', {
        exit: result.output.exitCode,
        why: `the client went away before its answer; ${what}`,
      });
    }
    const cniCode = cniCodeOf(result.output);
    done('answered', { exit: result.output.exitCode, ...(cniCode !== undefined && { cniCode }) });
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'POST' && path === AGENT_CNI_PATH) {
      if (stopping) {
        res.setHeader(FALLBACK_HEADER, 'the agent is stopping');
        text(res, FALLBACK_STATUS, 'the agent is stopping\n');
        return;
      }
      const work = serveCni(req, res).catch((e: unknown) => {
        // serveAgentRequest never throws; this is the last line of defence.
        o.log.error(`serving a request failed: ${(e as Error).stack ?? String(e)}`);
        if (!res.headersSent) text(res, 500, 'internal error\n');
        else res.destroy();
      });
      pending.add(work);
      void work.finally(() => pending.delete(work));
      return;
    }
    if (req.method !== 'GET') return text(res, 405, 'method not allowed\n');
    if (path === '/v1/status') {
      const body = `${JSON.stringify({ ...o.status(), inFlight: pending.size })}\n`;
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      });
      res.end(body);
      return;
    }
    const probes = { metrics: o.metrics, ready: () => o.status().ready };
    if (!(await serveProbe(path ?? '', res, probes))) text(res, 404, 'not found\n');
  }

  const server = createServer(
    { maxHeaderSize: 16 * 1024, requestTimeout: 30_000, headersTimeout: 10_000, keepAlive: false },
    (req, res) => void route(req, res),
  );
  await prepareSocketPath(o.socketPath);
  const ino = await listenPrivately(server, o.socketPath);
  return {
    inFlight: () => pending.size,
    async stop(drainMs) {
      stopping = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await removeSocket(o.socketPath, ino);
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, drainMs);
        timer.unref();
      });
      await Promise.race([Promise.allSettled([...pending]), deadline]);
      clearTimeout(timer);
      const left = pending.size;
      server.closeAllConnections();
      await closed;
      return left;
    },
  };
}
