import type * as NetModule from 'node:net';
import type { AgentReply, AgentRequest } from './agent-protocol.js';
import { agentHttpRequest, parseAgentResponse } from './agent-protocol.js';

/**
 * How long a client waits for the agent's answer: longer than the agent's own bounds (90 s for
 * the host lock, then 90 s for the command), so a live agent always answers first.
 */
const ANSWER_TIMEOUT_MS = 200_000;

/** Options of {@link askAgent}. */
export interface AskAgentOptions {
  /** The agent's unix socket (`agent_socket`). */
  readonly socketPath: string;
  readonly request: AgentRequest;
  /** Sent as the User-Agent (the agent counts requests by client). */
  readonly client: string;
  readonly timeoutMs?: number;
}

// Loaded on first use: a plugin invocation on a host without an agent never pays for node:net.
const net = (): typeof NetModule => process.getBuiltinModule('node:net');

/**
 * Sends one CNI request to the node agent and returns its answer, or a fallback (with the reason)
 * when the agent cannot serve it: no socket, nobody listening, permission denied, a refusal, a
 * connection cut short (an agent stopping or crashing), no answer within the timeout. Never
 * rejects. After a fallback the caller runs the command itself; that is safe whatever the agent
 * did meanwhile, since every command is idempotent and the agent takes the same host lock.
 */
export function askAgent(options: AskAgentOptions): Promise<AgentReply> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let done = false;
    const finish = (reply: AgentReply): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(reply);
    };
    const socket = net().createConnection({ path: options.socketPath });
    const timer = setTimeout(
      () => finish({ kind: 'fallback', reason: 'no answer in time' }),
      options.timeoutMs ?? ANSWER_TIMEOUT_MS,
    );
    socket.on('error', (e: NodeJS.ErrnoException) =>
      finish({ kind: 'fallback', reason: `${options.socketPath}: ${e.code ?? e.message}` }),
    );
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('end', () => finish(parseAgentResponse(Buffer.concat(chunks))));
    socket.on('close', () => finish(parseAgentResponse(Buffer.concat(chunks))));
    // No half-close: the agent answers an HTTP/1.0 request and closes the connection itself.
    socket.write(agentHttpRequest(options.request, options.client));
  });
}
