// netledger-node --metrics-listen: /metrics, /healthz and /readyz on TCP, scraped by a Prometheus
// client's request while the installed plugin sends it a burst of 100 ADDs.
import { join } from 'node:path';
import { createTempDir, startNodeAgent } from '@netledger/testkit';
import type { NodeAgentFixture } from '@netledger/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { AGENT, CLIENT, ctl, installPlugin, runCni, statusWhenIdle } from './agent-harness.js';

const NODE = 'metrics-node';
const BURST = 100;

let tmp: { path: string; remove: () => Promise<void> };
let socket: string;
let store: string;
let plugin: string;
let agent: NodeAgentFixture | undefined;

beforeAll(async () => {
  tmp = await createTempDir('netledger-agent-metrics-');
  socket = join(tmp.path, 'run', 'node.sock');
  store = join(tmp.path, 'store', 'datastore.json');
  ctl(store, ['ippool', 'create', '--name', 'pool1', '--cidr', '10.62.0.0/24']);
  plugin = installPlugin({ dir: join(tmp.path, 'bin') });
}, 120_000);

afterEach(async () => {
  await agent?.stop('SIGKILL');
  agent = undefined;
});

afterAll(async () => {
  await tmp?.remove();
});

const conf = (ipam: Record<string, unknown> = {}) => ({
  cniVersion: '1.1.0',
  name: 'metricsnet',
  ipam: {
    type: 'netledger-ipam',
    nodename: NODE,
    datastore_path: store,
    ipam_lock_file: join(tmp.path, 'ipam.lock'),
    agent_socket: socket,
    ...ipam,
  },
});

/** A sample's value in Prometheus text, or undefined when the series is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('netledger-node --metrics-listen', () => {
  it('serves /healthz, /readyz and /metrics on TCP: a scrape during a 100-ADD burst has the latency histogram, then counts of requests, errors by CNI code and store requests', async () => {
    agent = await startNodeAgent({
      bin: AGENT,
      nodename: NODE,
      socket,
      env: { NETLEDGER_DATASTORE_PATH: store },
      args: ['--metrics-listen', '127.0.0.1:0'],
    });
    const base = /metrics, \/healthz and \/readyz on (http:\/\/127\.0\.0\.1:\d+)/.exec(
      agent.log(),
    )?.[1];
    expect(base, agent.log()).toBeDefined();
    const get = async (path: string) => {
      const res = await fetch(`${base!}${path}`);
      return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
    };
    expect(await get('/healthz')).toMatchObject({ status: 200, body: 'ok\n' });
    await vi.waitFor(async () => expect((await get('/readyz')).status).toBe(200), {
      timeout: 30_000,
    });
    expect((await get('/v1/cni')).status).toBe(404); // no CNI request is taken over TCP

    const ids = Array.from({ length: BURST }, (_, i) => `burst-${i}`);
    let finished = false;
    const burst = Promise.all(
      ids.map((id) => runCni({ plugin, command: 'ADD', containerId: id, conf: conf() })),
    ).finally(() => (finished = true));
    // Scrape while the burst runs, as Prometheus would.
    const during: string[] = [];
    while (!finished) {
      const s = await get('/metrics');
      expect(s).toMatchObject({ status: 200, type: expect.stringContaining('text/plain') });
      during.push(s.body);
    }
    const runs = await burst;
    expect(runs.map((r) => r.status)).toEqual(ids.map(() => 0));
    const series =
      'netledger_node_request_duration_seconds_count{command="ADD",outcome="answered"}';
    const midBurst = during.find((t) => {
      const n = sample(t, series) ?? 0;
      return n > 0 && n < BURST;
    });
    expect(midBurst, 'a scrape taken while the ADDs were being served').toBeDefined();
    expect(midBurst).toMatch(
      /^netledger_node_request_duration_seconds_bucket\{le="0\.005",command="ADD",outcome="answered"\} \d+$/m,
    );

    const failed = await runCni({
      plugin,
      command: 'ADD',
      containerId: 'no-pool',
      conf: conf({ ipv4_pools: ['nope'] }),
    });
    expect(failed.status).not.toBe(0);
    const code = (failed.json as { code: number }).code;

    await statusWhenIdle(agent); // the failed ADD's answer arrives before it is counted
    const after = (await get('/metrics')).body;
    // The histogram: cumulative buckets ending at +Inf with every ADD answered (the failed one
    // too: it was answered, with its error), and its sum.
    const buckets = [
      ...after.matchAll(
        /^netledger_node_request_duration_seconds_bucket\{le="([^"]+)",command="ADD",outcome="answered"\} (\d+)$/gm,
      ),
    ].map((m) => [m[1], Number(m[2])] as const);
    expect(buckets.map(([le]) => le)).toEqual([
      '0.001',
      '0.0025',
      '0.005',
      '0.01',
      '0.025',
      '0.05',
      '0.1',
      '0.25',
      '0.5',
      '1',
      '2.5',
      '5',
      '10',
      '30',
      '60',
      '+Inf',
    ]);
    const counts = buckets.map(([, n]) => n);
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(counts.at(-1)).toBe(BURST + 1);
    expect(sample(after, series)).toBe(BURST + 1);
    expect(
      sample(
        after,
        'netledger_node_request_duration_seconds_sum{command="ADD",outcome="answered"}',
      ),
    ).toBeGreaterThan(0);
    expect(
      sample(
        after,
        `netledger_node_requests_total{command="ADD",client="${CLIENT}",outcome="answered"}`,
      ),
    ).toBe(BURST + 1);
    expect(sample(after, `netledger_node_request_errors_total{command="ADD",code="${code}"}`)).toBe(
      1,
    );
    expect(
      sample(after, 'netledger_node_datastore_requests_total{operation="transact"}'),
    ).toBeGreaterThanOrEqual(BURST);
    expect(sample(after, 'netledger_node_synced')).toBe(1);
    expect(sample(after, 'netledger_node_in_flight')).toBe(0);
    expect(after).toMatch(/^process_resident_memory_bytes \d+/m);
  }, 180_000);

  it('refuses a --metrics-listen it cannot bind, naming it, and serves nothing', async () => {
    const taken = await startNodeAgent({
      bin: AGENT,
      nodename: NODE,
      socket,
      env: { NETLEDGER_DATASTORE_PATH: store },
      args: ['--metrics-listen', '127.0.0.1:0'],
    });
    agent = taken;
    const port = /on http:\/\/127\.0\.0\.1:(\d+)/.exec(taken.log())![1]!;
    await expect(
      startNodeAgent({
        bin: AGENT,
        nodename: NODE,
        socket: join(tmp.path, 'run2', 'node.sock'),
        env: { NETLEDGER_DATASTORE_PATH: store },
        args: ['--metrics-listen', `127.0.0.1:${port}`],
        startTimeoutMs: 30_000,
      }),
    ).rejects.toThrow(`cannot listen on --metrics-listen 127.0.0.1:${port}: listen EADDRINUSE`);
  }, 60_000);
});
