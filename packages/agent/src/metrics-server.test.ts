import { afterEach, describe, expect, it } from 'vitest';
import { createAgentMetrics } from './agent-metrics.js';
import { startMetricsServer } from './metrics-server.js';
import type { MetricsServer } from './metrics-server.js';

let server: MetricsServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const get = async (path: string, method = 'GET') => {
  const res = await fetch(`http://${server!.address}${path}`, { method });
  return { status: res.status, body: await res.text() };
};

describe('startMetricsServer', () => {
  it('/healthz always, /readyz as the view is synced, /metrics from the registry; nothing else', async () => {
    let ready = false;
    const metrics = createAgentMetrics();
    metrics.request({ command: 'DEL', client: 'c', outcome: 'answered', cniCode: 11 }, 3);
    server = await startMetricsServer({
      host: '127.0.0.1',
      port: 0,
      ready: () => ready,
      metrics: () => metrics.render({ inFlight: 2, synced: ready }),
    });
    expect(server.address).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(await get('/healthz')).toEqual({ status: 200, body: 'ok\n' });
    expect(await get('/readyz')).toEqual({ status: 503, body: 'not synced\n' });
    ready = true;
    expect(await get('/readyz')).toEqual({ status: 200, body: 'ok\n' });
    const m = await get('/metrics');
    expect(m.status).toBe(200);
    expect(m.body).toContain('netledger_node_request_errors_total{command="DEL",code="11"} 1');
    expect(m.body).toContain(
      'netledger_node_request_duration_seconds_bucket{le="0.005",command="DEL",outcome="answered"} 1',
    );
    expect(m.body).toContain('netledger_node_in_flight 2');
    expect(m.body).toContain('netledger_node_synced 1');
    expect((await get('/v1/cni')).status).toBe(404);
    expect((await get('/metrics', 'POST')).status).toBe(405);
  });

  it('rejects an address it cannot bind', async () => {
    server = await startMetricsServer({
      host: '127.0.0.1',
      port: 0,
      ready: () => true,
      metrics: async () => '',
    });
    const port = Number(server.address.split(':')[1]);
    await expect(
      startMetricsServer({ host: '127.0.0.1', port, ready: () => true, metrics: async () => '' }),
    ).rejects.toMatchObject({ code: 'EADDRINUSE' });
  });
});
