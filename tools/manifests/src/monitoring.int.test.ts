// deploy/monitoring/ against the metrics netledger's processes really serve: the built
// netledger-node (--metrics-listen) on a file store and netledger-kube-controllers on the real
// kube-apiserver with an etcd store are started and scraped, and every metric the alert rules and
// the Grafana dashboard name must be in their expositions.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempDir, startEtcd, startKubeApiserver, startNodeAgent } from '@netledger/testkit';
import type { EtcdFixture, KubeApiserverFixture, NodeAgentFixture } from '@netledger/testkit';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const BIN = join(ROOT, 'bin');
const MONITORING = join(ROOT, 'deploy', 'monitoring');

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels: { severity: string };
  annotations: { summary: string };
}
interface Panel {
  type: string;
  title: string;
  targets?: { expr: string }[];
}

const rules = (
  parseYaml(readFileSync(join(MONITORING, 'netledger-alerts.yaml'), 'utf8')) as {
    groups: { name: string; rules: Rule[] }[];
  }
).groups.flatMap((g) => g.rules);
const dashboard = JSON.parse(
  readFileSync(join(MONITORING, 'netledger-dashboard.json'), 'utf8'),
) as { uid: string; panels: Panel[] };
const panelExprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));

/** The metric names of an exposition: each `# TYPE`, with a histogram's series names. */
function exportedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    const [, name, type] = m as unknown as [string, string, string];
    names.add(name);
    if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(name + s);
  }
  return names;
}

/** The netledger metric names a PromQL expression reads. */
const namesIn = (expr: string): string[] => [
  ...new Set(expr.match(/\b(?:ipam|netledger)_[a-z0-9_]+\b/g) ?? []),
];

let dir: { path: string; remove: () => Promise<void> };
let api: KubeApiserverFixture | undefined;
let etcd: EtcdFixture | undefined;
let agent: NodeAgentFixture | undefined;
let controllers: ChildProcess | undefined;
const scraped: string[] = [];

async function scrapeAgent(): Promise<string> {
  const store = join(dir.path, 'datastore.json');
  agent = await startNodeAgent({
    bin: join(BIN, 'netledger-node'),
    nodename: 'monitoring-node',
    socket: join(dir.path, 'run', 'node.sock'),
    env: { NETLEDGER_DATASTORE_PATH: store },
    args: ['--metrics-listen', '127.0.0.1:0'],
  });
  const base = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(agent.log())![1]!;
  return (await fetch(`${base}/metrics`)).text();
}

async function scrapeControllers(): Promise<string> {
  api = await startKubeApiserver();
  etcd = await startEtcd();
  const child = spawn(
    join(BIN, 'netledger-kube-controllers'),
    ['--kubeconfig', api.kubeconfigPath, '--metrics-listen', '127.0.0.1:0'],
    {
      env: {
        PATH: process.env['PATH'] ?? '/usr/bin:/bin',
        DATASTORE_TYPE: 'etcdv3',
        ETCD_ENDPOINTS: etcd.endpoints.join(','),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  controllers = child;
  let err = '';
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const address = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`kube-controllers exited ${code}: ${err}`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const l = JSON.parse(line) as { msg?: string; address?: string };
      if (l.msg === 'serving metrics and health') resolve(String(l.address));
    });
  });
  return (await fetch(`http://${address}/metrics`)).text();
}

beforeAll(async () => {
  dir = await createTempDir('netledger-monitoring-');
  scraped.push(await scrapeAgent(), await scrapeControllers());
}, 240_000);

afterAll(async () => {
  await agent?.stop('SIGKILL');
  if (controllers && controllers.exitCode === null) {
    const exited = new Promise((r) => controllers!.once('exit', r));
    controllers.kill('SIGKILL');
    await exited;
  }
  await etcd?.stop();
  await api?.stop();
  await dir?.remove();
});

describe('deploy/monitoring', () => {
  it('every metric the alert rules and the dashboard read is served by netledger-node or netledger-kube-controllers', () => {
    const exported = new Set(scraped.flatMap((t) => [...exportedNames(t)]));
    // Both processes answered with their own metrics.
    expect(exported).toContain('netledger_node_request_duration_seconds_bucket');
    expect(exported).toContain('ipam_ippool_available');
    const missing = (expr: string) => namesIn(expr).filter((n) => !exported.has(n));
    for (const r of rules) expect(missing(r.expr), r.alert).toEqual([]);
    for (const e of panelExprs) expect(missing(e), e).toEqual([]);
    // The check can fail: a name the processes do not serve is caught.
    expect(missing('ipam_ippool_free > 0')).toEqual(['ipam_ippool_free']);
  });

  it('alerts on low pool capacity, GC reclamations spiking and agent errors; each rule has a severity and a summary', () => {
    const reads = (metric: string) => rules.filter((r) => namesIn(r.expr).includes(metric));
    expect(reads('ipam_ippool_available').length).toBeGreaterThan(0);
    expect(reads('ipam_allocations_gc_reclamations').length).toBeGreaterThan(0);
    expect(reads('netledger_node_request_errors_total').length).toBeGreaterThan(0);
    for (const r of rules) {
      expect(r.labels.severity, r.alert).toMatch(/^(warning|critical)$/);
      expect(r.annotations.summary, r.alert).not.toBe('');
      expect(namesIn(r.expr).length, r.alert).toBeGreaterThan(0);
    }
  });

  it('the dashboard has a panel per concern, each reading at least one served metric', () => {
    expect(dashboard.uid).toBe('netledger-ipam');
    const graphs = dashboard.panels.filter((p) => p.type !== 'row');
    expect(graphs.length).toBeGreaterThanOrEqual(8);
    for (const p of graphs)
      expect(namesIn((p.targets ?? []).map((t) => t.expr).join(' ')), p.title).not.toEqual([]);
  });
});
