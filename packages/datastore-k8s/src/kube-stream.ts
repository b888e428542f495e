// A streaming GET (a watch): the response's lines as they arrive, until the server ends it or the
// caller aborts.
import type { JsonValue } from '@netledger/ipam-core/adapter';
import type { KubeTransport } from './kube-transport.js';
import { TransportError, parseBody, readAll } from './kube-transport.js';

/** An open streaming response (a watch): its lines until the server ends it or `abort()`. */
export interface KubeStream {
  readonly status: number;
  /** The body, when the status is not 200 (the stream is then empty). */
  readonly body: JsonValue | undefined;
  readonly lines: AsyncIterable<string>;
  abort(): void;
}

/**
 * GETs `path` with no timeout and returns its lines (trimmed, blank ones left out). No answer is a
 * {@link TransportError}; so is a stream cut other than by `abort()`, which ends the lines quietly.
 */
export async function openKubeStream(transport: KubeTransport, path: string): Promise<KubeStream> {
  let sent;
  try {
    sent = await transport.send({ method: 'GET', path }, undefined);
  } catch (e) {
    throw new TransportError(e instanceof Error ? e.message : String(e), { cause: e });
  }
  const { req, res } = sent;
  const status = res.statusCode ?? 0;
  if (status !== 200) {
    const text = await readAll(req, res);
    return { status, body: parseBody(text, res), lines: (async function* () {})(), abort() {} };
  }
  let aborted = false;
  async function* lines(): AsyncGenerator<string> {
    let rest = '';
    try {
      for await (const chunk of res) {
        rest += (chunk as Buffer).toString('utf8');
        let nl: number;
        while ((nl = rest.indexOf('\n')) >= 0) {
          const line = rest.slice(0, nl).trim();
          rest = rest.slice(nl + 1);
          if (line) yield line;
        }
      }
    } catch (e) {
      if (aborted) return;
      throw new TransportError(e instanceof Error ? e.message : String(e), { cause: e });
    } finally {
      req.destroy();
    }
    if (rest.trim()) yield rest.trim();
  }
  return {
    status,
    body: undefined,
    lines: lines(),
    abort: () => {
      aborted = true;
      req.destroy();
    },
  };
}
