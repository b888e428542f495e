import type * as NetModule from 'node:net';
import { DEFAULT_AGENT_TIMEOUTS } from '../net-conf.js';
import type { AgentReply, AgentRequest } from './agent-protocol.js';
import { agentHttpRequest, parseAgentResponse } from './agent-protocol.js';

/** Options of {@link askAgent}. */
export interface AskAgentOptions {
  /** The agent's unix socket (`agent_socket`). */
  readonly socketPath: string;
  readonly request: AgentRequest;
  /** Sent as the User-Agent (the agent counts requests by client). */
  readonly client: string;
  /** How long connecting and sending the request may take (default 2 s): then a fallback. */
  readonly connectTimeoutMs?: number;
  /** How long the answer may take once the request is sent (default 60 s): then `unanswered`. */
  readonly answerTimeoutMs?: number;
}

/** What {@link askAgent} comes to: the agent's reply, or no answer in time to a request it has. */
export type AskAgentResult =
  | AgentReply
  /**
   * The whole request was sent and no answer came within the answer timeout: the agent may be
   * working on it (it rolls an ADD back once it finds its client gone), so the caller must not run
   * it too, but fail "try again later" (11).
   */
  | { readonly kind: 'unanswered'; readonly reason: string };

// Loaded on first use: a plugin invocation on a host without an agent never pays for node:net.
const net = (): typeof NetModule => process.getBuiltinModule('node:net');

/**
 * Sends one CNI request to the node agent and returns its answer; a fallback (with the reason)
 * when the agent cannot serve it: no socket, nobody listening, permission denied, not connected
 * and sent within the connect timeout, a refusal, a connection cut short (an agent stopping or
 * crashing); `unanswered` when the request was sent and no answer came within the answer timeout.
 * Never rejects. After a fallback the caller runs the command itself; that is safe whatever the
 * agent did meanwhile, since every command is idempotent, the agent takes the same host lock, and
 * an agent that had the request either never ran it or holds the lock until it answered.
 */
export function askAgent(options: AskAgentOptions): Promise<AskAgentResult> {
  const connectMs = options.connectTimeoutMs ?? DEFAULT_AGENT_TIMEOUTS.connect * 1000;
  const answerMs = options.answerTimeoutMs ?? DEFAULT_AGENT_TIMEOUTS.answer * 1000;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let done = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (reply: AskAgentResult): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(reply);
    };
    const socket = net().createConnection({ path: options.socketPath });
    timer = setTimeout(
      () => finish({ kind: 'fallback', reason: `not connected and sent within ${connectMs} ms` }),
      connectMs,
    );
    socket.on('error', (e: NodeJS.ErrnoException) =>
      finish({ kind: 'fallback', reason: `${options.socketPath}: ${e.code ?? e.message}` }),
    );
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('end', () => finish(parseAgentResponse(Buffer.concat(chunks))));
    socket.on('close', () => finish(parseAgentResponse(Buffer.concat(chunks))));
    // No half-close: the agent answers an HTTP/1.0 request and closes the connection itself (a
    // half-close would tell it the client is gone).
    socket.write(agentHttpRequest(options.request, options.client), (e) => {
      if (e || done) return;
      clearTimeout(timer);
      timer = setTimeout(
        () =>
          finish({
            kind: 'unanswered',
            reason: `the node agent at ${options.socketPath} did not answer within ${answerMs / 1000} s`,
          }),
        answerMs,
      );
    });
  });
}
