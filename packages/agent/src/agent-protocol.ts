// The wire format between netledger-ipam and netledger-node, the node agent: HTTP/1.0 over the
// agent's unix socket, one request per connection. The client is the static client
// (apps/cni-plugin/client/agent.go), which reads the answer: a complete 200 with the headers below
// is the plugin's output, anything else sends it to its Node.js fallback.

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

/** What the plugin printed and its exit status: the answer to one request. */
export interface AgentOutput {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: 0 | 1;
}

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

/** The status, headers and body of a served request (the static client reads them). */
export function answerResponse(output: AgentOutput): {
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
