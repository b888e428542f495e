// How the agent serves a DEL from the versions it holds (written-versions.ts), and where an
// answered request's log lines go.
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { IpamConf } from '../net-conf.js';
import type { AgentRequest } from './agent-protocol.js';
import type { AgentServeResult } from './serve-agent-request.js';
import type { WrittenVersions } from './written-versions.js';

/** Appends a request's log line to its `log_file_path`, as the plugin does; failures are dropped. */
function requestLog(ipam: IpamConf, line: string): void {
  if (ipam.logFilePath === undefined) return;
  try {
    mkdirSync(dirname(ipam.logFilePath), { recursive: true });
    appendFileSync(ipam.logFilePath, line);
  } catch {
    // The exec path would fail the same way; the answer itself is unaffected.
  }
}

type RequestLog = (ipam: IpamConf, line: string) => void;

/**
 * Serves a DEL with its reads of blocks and handles answered from the versions this agent holds
 * (written-versions.ts); when one of them proved stale, or the DEL failed after using one, it is
 * redone reading the store (a DEL is idempotent) and that answer is given, the first run's log
 * lines dropped. Other commands are served as they are.
 */
export function serveTrusting(
  versions: WrittenVersions,
  serve: (log: RequestLog) => Promise<AgentServeResult>,
): (request: AgentRequest) => Promise<AgentServeResult> {
  return async (request) => {
    if (request.env['CNI_COMMAND'] !== 'DEL') return serve(requestLog);
    const lines: [IpamConf, string][] = [];
    const { value, outcome } = await versions.trusting(() =>
      serve((ipam, line) => void lines.push([ipam, line])),
    );
    const failed = value.kind === 'answer' && value.output.exitCode !== 0;
    if (!outcome.stale && !(outcome.answered && failed)) {
      for (const [ipam, line] of lines) requestLog(ipam, line);
      return value;
    }
    if (value.kind === 'answer') await value.settle?.(true); // a DEL holds no lock; in case
    const again = await serve(requestLog);
    return again.kind === 'answer' ? { ...again, redone: true } : again;
  };
}
