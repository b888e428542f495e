import { request } from 'node:http';

/** What asking the agent for its status came to. */
export type AgentStatusQuery =
  | { readonly kind: 'status'; readonly status: Record<string, unknown> }
  /** The socket exists but this user may not connect to it (EACCES, EPERM): not "no agent". */
  | { readonly kind: 'denied'; readonly reason: string }
  /** No socket, nobody listening, no answer in 5 s, or an answer that is not the status. */
  | { readonly kind: 'none'; readonly reason: string };

const DENIED = new Set(['EACCES', 'EPERM']);

/**
 * Asks the agent on `socketPath` for its status (GET /v1/status): the parsed JSON; `denied` when
 * this user may not use the socket (its directory or the socket refuse it); `none` when nothing
 * answers there (no socket, nobody listening, no answer in 5 s, not JSON). Never rejects.
 */
export function queryAgentStatus(socketPath: string): Promise<AgentStatusQuery> {
  return new Promise((resolve) => {
    const none = (reason: string): void => resolve({ kind: 'none', reason });
    const req = request({ socketPath, path: '/v1/status', method: 'GET', timeout: 5000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        try {
          const status = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
          if (typeof status !== 'object' || status === null) return none('not a status document');
          resolve({ kind: 'status', status: status as Record<string, unknown> });
        } catch {
          none('not a status document');
        }
      });
      res.on('error', (e) => none(e.message));
    });
    req.on('timeout', () => req.destroy(new Error('no answer in 5 s')));
    req.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== undefined && DENIED.has(e.code)) resolve({ kind: 'denied', reason: e.code });
      else none(e.code ?? e.message);
    });
    req.end();
  });
}
