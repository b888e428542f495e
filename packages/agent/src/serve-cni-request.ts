// POST /v1/cni: one of the plugin's requests, from its body to its answer and what became of it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody, writeAnswer } from './agent-answer.js';
import { FALLBACK_HEADER, FALLBACK_STATUS, decodeAgentRequest } from './agent-protocol.js';
import type { AgentOutput, AgentRequest } from './agent-protocol.js';
import type { RequestLabels } from './agent-metrics.js';
import { answerText as text } from './probe-routes.js';
import { createRequestReport } from './request-report.js';
import type { AgentLog, RequestReport } from './request-report.js';

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

/** What serving a CNI request uses. */
export interface CniServing {
  /** Serves one CNI request; `signal` aborts when the client hangs up first. */
  readonly serve: (request: AgentRequest, signal: AbortSignal) => Promise<ServedRequest>;
  /** Called once per CNI request with what became of it (and its CNI code when it failed). */
  readonly onRequest: (labels: RequestLabels, ms: number) => void;
  readonly log: AgentLog;
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

/** Writes an answer, settles it (an ADD's host lock) and reports whether the client took it. */
async function deliver(
  res: ServerResponse,
  result: Extract<ServedRequest, { kind: 'answer' }>,
  at: { readonly gone: AbortSignal; readonly report: RequestReport },
): Promise<void> {
  let delivered = false;
  let undone: string | undefined;
  try {
    delivered = await writeAnswer(res, result.output, at.gone);
  } finally {
    undone = await result.settle?.(delivered);
  }
  if (!delivered) {
    const what = undone ?? 'nothing to undo';
    return at.report.done('abandoned', {
      exit: result.output.exitCode,
      why: `the client went away before its answer; ${what}`,
    });
  }
  const cniCode = cniCodeOf(result.output);
  at.report.done('answered', {
    exit: result.output.exitCode,
    ...(cniCode !== undefined && { cniCode }),
  });
}

/**
 * Serves one POST /v1/cni: a body over the limit or not in the agent's format is refused (4xx)
 * before anything runs; otherwise the request is served and its answer, or the client sent back
 * to run it itself, written. Each request is reported once. Rejects only for an unexpected error
 * (the caller answers 500).
 */
export async function serveCniRequest(
  req: IncomingMessage,
  res: ServerResponse,
  serving: CniServing,
): Promise<void> {
  const report = createRequestReport(req, serving);
  // Listening from the start: a client gone before its request is read is a client gone.
  const gone = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  let body: Buffer | undefined;
  try {
    body = await readBody(req, res);
  } catch (e) {
    if (!gone.signal.aborted && !req.destroyed && code(e) !== 'ECONNRESET') throw e;
    return report.done('abandoned', {
      why: 'the client closed its connection mid-request; nothing done',
    });
  }
  if (body === undefined) return report.done('refused');
  let request: AgentRequest;
  try {
    request = decodeAgentRequest(body);
  } catch (e) {
    text(res, 400, `${(e as Error).message}\n`);
    return report.done('refused');
  }
  report.command = String(request.env['CNI_COMMAND'] ?? '').slice(0, 16) || 'none';
  const result = await serving.serve(request, gone.signal);
  if (result.kind === 'not-run') return report.done('not-run', { why: result.reason });
  if (result.kind === 'fallback') {
    if (gone.signal.aborted) return report.done('abandoned', { why: 'the client went away' });
    res.setHeader(FALLBACK_HEADER, result.reason.replace(/[^\x20-\x7e]/g, '?'));
    text(res, FALLBACK_STATUS, `${result.reason}\n`);
    return report.done('fallback', { why: result.reason });
  }
  await deliver(res, result, { gone: gone.signal, report });
}
