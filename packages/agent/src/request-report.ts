// What became of one CNI request on the agent's endpoint: a log line and the request counters.
import type { IncomingMessage } from 'node:http';
import type { RequestLabels, RequestOutcome } from './agent-metrics.js';

/** Where the endpoint logs. */
export interface AgentLog {
  debug(msg: string): void;
  warning(msg: string): void;
  error(msg: string): void;
}

/** The details of a request's outcome: its exit status, why, and its CNI error code. */
interface OutcomeDetail {
  readonly exit?: number;
  readonly why?: string;
  readonly cniCode?: number;
}

/** Reports one request's outcome, once its command is known. */
export interface RequestReport {
  /** The request's CNI_COMMAND, once its body is decoded ('unknown' until then). */
  command: string;
  done(outcome: RequestOutcome, detail?: OutcomeDetail): void;
}

/**
 * A report for the request `req` started now: `done` logs a line (a warning when the client went
 * away or the request was not run, else debug) and calls `onRequest` with the labels and the
 * elapsed milliseconds.
 */
export function createRequestReport(
  req: IncomingMessage,
  to: { readonly log: AgentLog; readonly onRequest: (labels: RequestLabels, ms: number) => void },
): RequestReport {
  const started = performance.now();
  const client = String(req.headers['user-agent'] ?? 'unknown').slice(0, 64);
  const report: RequestReport = {
    command: 'unknown',
    done(outcome, { exit, why, cniCode } = {}) {
      const ms = performance.now() - started;
      const parts = [exit !== undefined && `exit ${exit}`, why].filter(
        (x) => typeof x === 'string',
      );
      const detail = parts.length > 0 ? ` (${parts.join('; ')})` : '';
      const line = `${report.command} from ${client}: ${outcome}${detail} in ${ms.toFixed(1)} ms`;
      // A client that went away is worth a line at any level; the rest is for debugging.
      if (outcome === 'abandoned' || outcome === 'not-run') to.log.warning(line);
      else to.log.debug(line);
      const labels = { command: report.command, client, outcome };
      to.onRequest({ ...labels, ...(cniCode !== undefined && { cniCode }) }, ms);
    },
  };
  return report;
}
