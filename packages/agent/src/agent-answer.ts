// Reading a CNI request's body and writing its answer on the agent's endpoint.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AGENT_MAX_REQUEST_BYTES, answerResponse } from './agent-protocol.js';
import type { AgentOutput } from './agent-protocol.js';
import { answerText as text } from './probe-routes.js';

/**
 * Writes a served request's answer; resolves whether the client's socket took it: false when the
 * client went away first (its connection closed or ended: the clients never half-close), or the
 * write failed because it had. A 'finish' alone proves nothing: a write the socket refused still
 * calls back, so the socket's own error state decides.
 */
export function writeAnswer(
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

/**
 * The request's body, or undefined after answering 413 for one over the limit (declared or
 * read); rejects when reading fails (the client went away).
 */
export async function readBody(
  req: IncomingMessage,
  res: ServerResponse,
): Promise<Buffer | undefined> {
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
