import { request } from 'node:https';

/** An answer of the API server: status and body text; status 0 when the request failed. */
export interface KubeResponse {
  readonly status: number;
  readonly body: string;
}

/** Who talks to the API server and how: its URL, the CA that signed it, a bearer token. */
export interface KubeEndpoint {
  readonly url: string;
  readonly caPem: string;
  readonly token: string;
}

/**
 * One request to the API server (JSON body if given), given up after `timeoutMs` without an
 * answer. Never throws: a connection error is status 0 with the error in `body`.
 */
export async function kubeRequest(
  endpoint: KubeEndpoint,
  req: { method: 'GET' | 'POST'; path: string; json?: unknown; timeoutMs?: number },
): Promise<KubeResponse> {
  const payload = req.json === undefined ? undefined : JSON.stringify(req.json);
  return new Promise((resolve) => {
    const r = request(new URL(req.path, endpoint.url), {
      method: req.method,
      ca: endpoint.caPem,
      agent: false,
      timeout: req.timeoutMs ?? 2000,
      headers: {
        authorization: `Bearer ${endpoint.token}`,
        accept: 'application/json',
        ...(payload !== undefined && { 'content-type': 'application/json' }),
      },
    });
    r.on('timeout', () => r.destroy(new Error('timed out')));
    r.on('error', (e) => resolve({ status: 0, body: e.message }));
    r.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (e) => resolve({ status: 0, body: e.message }));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    r.end(payload);
  });
}
