import { request } from 'node:http';

/**
 * Asks the agent on `socketPath` for its status (GET /v1/status): the parsed JSON, or undefined
 * when nothing answers there (no socket, nobody listening, no permission, no answer in 5 s).
 */
export function queryAgentStatus(socketPath: string): Promise<Record<string, unknown> | undefined> {
  return new Promise((resolve) => {
    const req = request({ socketPath, path: '/v1/status', method: 'GET', timeout: 5000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>);
        } catch {
          resolve(undefined);
        }
      });
      res.on('error', () => resolve(undefined));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
    req.end();
  });
}
