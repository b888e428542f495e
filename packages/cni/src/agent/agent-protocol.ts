// The wire format between netledger-ipam and netledger-node, the node agent: HTTP/1.0 over the
// agent's unix socket, simple enough for a client written in a few lines of any language (the
// installed plugin's Perl client, agent-client.pl, speaks it too). One request per connection.
import type { PluginOutput } from '../run-plugin.js';

/** The agent's path for CNI commands (POST). */
export const AGENT_CNI_PATH = '/v1/cni';
/** The largest request body the agent reads; a larger one is refused (413). */
export const AGENT_MAX_REQUEST_BYTES = 1024 * 1024;
/** Response header: the plugin's exit status (0 or 1). */
const EXIT_CODE_HEADER = 'x-cni-exit-code';
/** Response header: how many bytes of the body are the plugin's stdout (the rest is stderr). */
const STDOUT_LENGTH_HEADER = 'x-cni-stdout-length';
/** Response header of a request the agent does not serve (421): why, for the client's log. */
export const FALLBACK_HEADER = 'x-netledger-fallback';
/** The status of a request the agent does not serve: the client runs the command itself. */
export const FALLBACK_STATUS = 421;

/** What the plugin was given: its environment and its standard input. */
export interface AgentRequest {
  readonly env: Readonly<Record<string, string>>;
  readonly stdin: string;
}

/** A request body the agent cannot read: refused (400), nothing touched. */
export class AgentProtocolError extends Error {
  override readonly name = 'AgentProtocolError';
}

const ENV_KEY = /^[^=\0]+$/;

/**
 * The request body: each environment entry as `KEY=VALUE` followed by a NUL byte (the form of
 * /proc/PID/environ: neither part can hold a NUL), then one more NUL, then standard input
 * verbatim.
 */
export function encodeAgentRequest(request: AgentRequest): Buffer {
  const parts: Buffer[] = [];
  for (const [key, value] of Object.entries(request.env)) {
    if (!ENV_KEY.test(key) || value.includes('\0')) {
      throw new AgentProtocolError(`environment entry ${JSON.stringify(key)} cannot be sent`);
    }
    parts.push(Buffer.from(`${key}=${value}\0`, 'utf8'));
  }
  parts.push(Buffer.from([0]), Buffer.from(request.stdin, 'utf8'));
  return Buffer.concat(parts);
}

/**
 * Reads a request body ({@link encodeAgentRequest}). Throws {@link AgentProtocolError} for a body
 * without the end of the environment, an entry without `=` or with an empty key, or a key given
 * twice. Standard input is decoded as UTF-8 as the plugin decodes it (bad bytes become U+FFFD).
 */
export function decodeAgentRequest(body: Buffer): AgentRequest {
  // No prototype: a variable named __proto__ is an entry like any other.
  const env = Object.create(null) as Record<string, string>;
  let at = 0;
  for (;;) {
    const end = body.indexOf(0, at);
    if (end < 0) throw new AgentProtocolError('the environment is not terminated');
    if (end === at) break;
    const entry = body.toString('utf8', at, end);
    const eq = entry.indexOf('=');
    if (eq <= 0) throw new AgentProtocolError(`bad environment entry ${JSON.stringify(entry)}`);
    const key = entry.slice(0, eq);
    if (Object.hasOwn(env, key))
      throw new AgentProtocolError(`environment variable ${key} is given twice`);
    env[key] = entry.slice(eq + 1);
    at = end + 1;
  }
  return { env, stdin: body.toString('utf8', at + 1) };
}

/** The HTTP/1.0 request a client writes on a fresh connection to the agent's socket. */
export function agentHttpRequest(request: AgentRequest, client: string): Buffer {
  const body = encodeAgentRequest(request);
  const head =
    `POST ${AGENT_CNI_PATH} HTTP/1.0\r\nHost: netledger-node\r\nUser-Agent: ${client}\r\n` +
    `Content-Type: application/octet-stream\r\nContent-Length: ${body.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), body]);
}

/** The agent's answer: the plugin's output, or that the client must run the command itself. */
export type AgentReply =
  | { readonly kind: 'answer'; readonly output: PluginOutput }
  | { readonly kind: 'fallback'; readonly reason: string };

/** The status, headers and body of a served request ({@link parseAgentResponse} reads them). */
export function answerResponse(output: PluginOutput): {
  headers: Record<string, string>;
  body: Buffer;
} {
  const stdout = Buffer.from(output.stdout, 'utf8');
  const body = Buffer.concat([stdout, Buffer.from(output.stderr, 'utf8')]);
  return {
    headers: {
      [EXIT_CODE_HEADER]: String(output.exitCode),
      [STDOUT_LENGTH_HEADER]: String(stdout.length),
      'content-type': 'application/octet-stream',
      'content-length': String(body.length),
    },
    body,
  };
}

const fallback = (reason: string): AgentReply => ({ kind: 'fallback', reason });

/**
 * Reads the whole of what the agent sent back before closing the connection. Only a complete
 * `200` (Content-Length met exactly, an exit status of 0 or 1, a stdout length within the body)
 * is an answer; anything else (a refusal, a 421, a connection cut short by an agent that stopped
 * or crashed) is a fallback: the client then runs the command itself, which is safe because ADD,
 * DEL and GC are idempotent (an ADD the agent completed before dying is found and returned).
 */
export function parseAgentResponse(raw: Buffer): AgentReply {
  const headEnd = raw.indexOf('\r\n\r\n');
  if (headEnd < 0) return fallback(raw.length === 0 ? 'no answer' : 'an incomplete answer');
  const [statusLine = '', ...lines] = raw.toString('latin1', 0, headEnd).split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})\b/.exec(statusLine)?.[1];
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0)
      headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const body = raw.subarray(headEnd + 4);
  if (status !== '200') {
    const why = headers.get(FALLBACK_HEADER) ?? body.toString('utf8').trim();
    return fallback(`the agent answered ${status ?? 'garbage'}${why ? `: ${why}` : ''}`);
  }
  const length = Number(headers.get('content-length'));
  const stdoutLength = Number(headers.get(STDOUT_LENGTH_HEADER));
  const exit = headers.get(EXIT_CODE_HEADER);
  if (!Number.isSafeInteger(length) || length !== body.length)
    return fallback('an incomplete answer');
  if ((exit !== '0' && exit !== '1') || !Number.isSafeInteger(stdoutLength))
    return fallback('a malformed answer');
  if (stdoutLength < 0 || stdoutLength > body.length) return fallback('a malformed answer');
  return {
    kind: 'answer',
    output: {
      stdout: body.toString('utf8', 0, stdoutLength),
      stderr: body.toString('utf8', stdoutLength),
      exitCode: exit === '0' ? 0 : 1,
    },
  };
}
