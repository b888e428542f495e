// netledger-node side by side with its Node.js fallback and with Debian's host-local, in one run
// on one machine: ADD and DEL latency through the agent (the installed static client), through
// the client's Node.js fallback (no agent), and host-local; 100 containers added at once through
// the agent vs host-local; what one ADD and one DEL cost the store in steady state on etcd (etcd's
// own gRPC counters) and on Kubernetes (kube-apiserver's apiserver_request_total), agent vs
// fallback; the fallback beside two bare Node.js start-ups; and 1,000 ADDs over 10 agents at once
// on Kubernetes.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  cniEnv as cniEnvOf,
  mustSucceed,
  percentile,
  timedRun,
  workspaceRoot,
  writeBenchResults,
} from '@netledger/bench';
import type { BenchResult } from '@netledger/bench';
import { createTempDir, startEtcd, startKubeApiserver, startNodeAgent } from '@netledger/testkit';
import type { KubeApiserverFixture, NodeAgentFixture } from '@netledger/testkit';

const ROOT = workspaceRoot();
const BIN = join(ROOT, 'bin');
const AGENT = join(BIN, 'netledger-node');
const HOST_LOCAL = '/usr/lib/cni/host-local';
const ROUNDS = 60;
const WARM_UP = 3;
const CONCURRENT = 100;
const STEADY = 20;
const NODE = 'bench-node';

const exec = (file: string, env: Record<string, string>, stdin: string) =>
  timedRun({ file, env, stdin });

const cniEnv = (command: string, id: string): Record<string, string> =>
  cniEnvOf({ command, id, cniPath: `${BIN}:/usr/lib/cni` });

/** One plugin run; throws unless it succeeded. */
const must = (o: { plugin: string; command: string; id: string; conf: string }) =>
  mustSucceed(`${o.plugin} ${o.command} ${o.id}`, exec(o.plugin, cniEnv(o.command, o.id), o.conf));

const p = (xs: number[], q: number): number =>
  percentile(
    [...xs].sort((a, b) => a - b),
    q,
  );

const ms = (name: string, value: number, target?: string): BenchResult => ({
  name,
  value,
  unit: 'ms',
  better: 'lower',
  ...(target && { target }),
});

/**
 * Runs bin/netledgerctl on the store named by `env` (the store is seeded the way an operator
 * would, which keeps this bench's own imports free of store clients); throws on failure.
 */
function ctl(env: Record<string, string>, args: string[]): void {
  const r = spawnSync(join(BIN, 'netledgerctl'), args, {
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', ...env },
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`netledgerctl ${args.join(' ')}: ${r.stderr}${r.stdout}`);
}

/** Installs the plugin (the static client and its fallback) into `dir`; returns the client. */
function install(o: { dir: string }): string {
  const r = spawnSync(join(BIN, 'netledger-ipam'), ['install', '--bin-dir', o.dir], {
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`install: ${r.stderr}`);
  return join(o.dir, 'netledger-ipam');
}

/** `count` plugin runs started at once; the wall time in seconds until the last answered. */
async function burst(o: { plugin: string; conf: string; prefix: string; command: string }) {
  const start = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENT }, (_, i) =>
      must({ plugin: o.plugin, command: o.command, id: `${o.prefix}${i}`, conf: o.conf }),
    ),
  );
  return (performance.now() - start) / 1000;
}

/** Reads and writes by a counter of requests per operation, as "read"/"write" sums. */
type Tally = { reads: number; writes: number };

/** etcd's gRPC requests (the HTTP gateway's included), by kind: Range is a read, Txn/Put/DeleteRange writes. */
async function etcdRequests(endpoint: string): Promise<Tally> {
  const text = await (await fetch(`${endpoint}/metrics`)).text();
  const t: Tally = { reads: 0, writes: 0 };
  for (const line of text.split('\n')) {
    const m = /^grpc_server_started_total\{.*grpc_method="(\w+)".*\} (\d+)/.exec(line);
    if (!m) continue;
    if (m[1] === 'Range') t.reads += Number(m[2]);
    else if (['Txn', 'Put', 'DeleteRange'].includes(m[1]!)) t.writes += Number(m[2]);
  }
  return t;
}

/** apiserver_request_total over Calico's CRDs, nodes, pods and namespaces, reads and writes. */
async function apiRequests(api: KubeApiserverFixture): Promise<Tally> {
  const r = await api.kubectl(['get', '--raw', '/metrics']);
  const t: Tally = { reads: 0, writes: 0 };
  for (const line of r.stdout.split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    const group = /group="([^"]*)"/.exec(line)?.[1] ?? '';
    const resource = /resource="([^"]*)"/.exec(line)?.[1] ?? '';
    const verb = /verb="([^"]*)"/.exec(line)?.[1] ?? '';
    const ours =
      group === 'crd.projectcalico.org' ||
      (group === '' && ['nodes', 'pods', 'namespaces'].includes(resource));
    if (!ours) continue;
    const n = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (['GET', 'LIST', 'WATCH'].includes(verb)) t.reads += n;
    else t.writes += n;
  }
  return t;
}

/** What sequential ADDs and DELs cost the store, per request, and took. */
interface StoreCost {
  readonly add: Tally;
  readonly del: Tally;
  readonly addMs: number[];
  readonly delMs: number[];
}

/** Per-ADD and per-DEL reads and writes, and latencies, over `STEADY` sequential ADDs then their DELs. */
async function steadyCost(o: {
  plugin: string;
  conf: string;
  prefix: string;
  count: () => Promise<Tally>;
}): Promise<StoreCost> {
  const per = (a: Tally, b: Tally): Tally => ({
    reads: (b.reads - a.reads) / STEADY,
    writes: (b.writes - a.writes) / STEADY,
  });
  // Warm: the block exists, the agent's view is synced and it wrote the block last.
  await must({ plugin: o.plugin, command: 'ADD', id: `${o.prefix}w`, conf: o.conf });
  const addMs: number[] = [];
  const delMs: number[] = [];
  const t0 = await o.count();
  for (let i = 0; i < STEADY; i++)
    addMs.push(
      await must({ plugin: o.plugin, command: 'ADD', id: `${o.prefix}${i}`, conf: o.conf }),
    );
  const t1 = await o.count();
  for (let i = 0; i < STEADY; i++)
    delMs.push(
      await must({ plugin: o.plugin, command: 'DEL', id: `${o.prefix}${i}`, conf: o.conf }),
    );
  const t2 = await o.count();
  return { add: per(t0, t1), del: per(t1, t2), addMs, delMs };
}

const requests = (name: string, value: number, target?: string): BenchResult => ({
  name,
  value,
  unit: 'requests',
  better: 'lower',
  ...(target && { target }),
});

function costResults(store: string, agent: StoreCost, plain: StoreCost): BenchResult[] {
  return [
    ms(`${store}: ADD p50, through the agent (static client)`, p(agent.addMs, 50)),
    ms(`${store}: ADD p50, fallback`, p(plain.addMs, 50)),
    ms(`${store}: DEL p50, through the agent (static client)`, p(agent.delMs, 50)),
    ms(`${store}: DEL p50, fallback`, p(plain.delMs, 50)),
    requests(
      `${store}: reads per ADD, through the agent (steady state)`,
      agent.add.reads,
      '1 (its handle)',
    ),
    requests(`${store}: writes per ADD, through the agent (steady state)`, agent.add.writes),
    requests(`${store}: reads per ADD, fallback`, plain.add.reads),
    requests(`${store}: writes per ADD, fallback`, plain.add.writes),
    requests(`${store}: reads per DEL, through the agent`, agent.del.reads),
    requests(`${store}: writes per DEL, through the agent`, agent.del.writes),
    requests(`${store}: reads per DEL, fallback`, plain.del.reads),
    requests(`${store}: writes per DEL, fallback`, plain.del.writes),
  ];
}

async function latencyAndBurst(dir: string, results: BenchResult[]): Promise<void> {
  const socket = join(dir, 'run', 'node.sock');
  const agentStore = join(dir, 'agent', 'datastore.json');
  const execStore = join(dir, 'exec', 'datastore.json');
  for (const [path, cidr] of [
    [agentStore, '10.70.0.0/16'],
    [execStore, '10.71.0.0/16'],
  ] as const) {
    ctl({ NETLEDGER_DATASTORE_PATH: path }, [
      'ippool',
      'create',
      '--name',
      'bench',
      '--cidr',
      cidr,
    ]);
  }
  const client = install({ dir: join(dir, 'bin') });
  const ipam = (path: string, agentSocket: string) =>
    JSON.stringify({
      cniVersion: '1.0.0',
      name: 'agentbench',
      ipam: {
        type: 'netledger-ipam',
        nodename: NODE,
        datastore_path: path,
        ipam_lock_file: join(dir, 'ipam.lock'),
        agent_socket: agentSocket,
        log_level: 'error',
      },
    });
  const agentConf = ipam(agentStore, socket);
  // Today's path: bin/netledger-ipam, and a config naming a socket nobody listens on.
  const execConf = ipam(execStore, join(dir, 'none.sock'));
  const hlConf = JSON.stringify({
    cniVersion: '1.0.0',
    name: 'hlbench',
    ipam: { type: 'host-local', subnet: '10.72.0.0/16', dataDir: join(dir, 'host-local') },
  });
  const agent = await startNodeAgent({
    bin: AGENT,
    nodename: NODE,
    socket,
    env: { NETLEDGER_DATASTORE_PATH: agentStore },
  });
  try {
    const paths = {
      'through the agent (static client)': { plugin: client, conf: agentConf },
      'fallback (Node.js, no agent)': { plugin: client, conf: execConf },
      'host-local': { plugin: HOST_LOCAL, conf: hlConf },
    };
    const t = new Map(
      Object.keys(paths).map((k) => [k, { add: [] as number[], del: [] as number[] }]),
    );
    // The fallback's floor: two bare Node.js start-ups with the fallback's Node and flags (none),
    // one after the other, as a fallback ADD is one start-up more than the client's.
    const node = join(dir, 'bin', 'netledger-ipam.d', 'node');
    const bareStarts: number[] = [];
    // Interleaved, so every path sees the same machine load.
    for (let i = -WARM_UP; i < ROUNDS; i++) {
      for (const [name, { plugin, conf }] of Object.entries(paths)) {
        const id = `lat${i + WARM_UP}`;
        const add = await must({ plugin, command: 'ADD', id, conf });
        const del = await must({ plugin, command: 'DEL', id, conf });
        if (i < 0) continue;
        t.get(name)!.add.push(add);
        t.get(name)!.del.push(del);
      }
      const bare = async () =>
        mustSucceed('node -e 0', timedRun({ file: node, args: ['-e', '0'], env: {}, stdin: '' }));
      const twice = (await bare()) + (await bare());
      if (i >= 0) bareStarts.push(twice);
    }
    for (const [name, { add, del }] of t) {
      results.push(
        ms(`ADD p50, ${name}`, p(add, 50)),
        ms(`ADD p99, ${name}`, p(add, 99)),
        ms(`DEL p50, ${name}`, p(del, 50)),
        ms(`DEL p99, ${name}`, p(del, 99)),
      );
    }
    results.push(
      ms("two `node -e 0` one after the other (the fallback's Node.js), p50", p(bareStarts, 50)),
    );
    const hl = t.get('host-local')!;
    const viaAgent = t.get('through the agent (static client)')!;
    const fallback = t.get('fallback (Node.js, no agent)')!;
    const ratio = (name: string, value: number, target?: string): BenchResult => ({
      name,
      value,
      unit: 'x',
      better: 'lower',
      ...(target && { target }),
    });
    results.push(
      ratio('ADD p50 ratio agent / host-local', p(viaAgent.add, 50) / p(hl.add, 50), '<= 1'),
      ratio('ADD p99 ratio agent / host-local', p(viaAgent.add, 99) / p(hl.add, 99), '<= 2'),
      ratio('DEL p50 ratio agent / host-local', p(viaAgent.del, 50) / p(hl.del, 50)),
      ratio('ADD p50 ratio fallback / two `node -e 0`', p(fallback.add, 50) / p(bareStarts, 50)),
    );

    const agentBurst = await burst({
      plugin: client,
      conf: agentConf,
      prefix: 'b',
      command: 'ADD',
    });
    const hlBurst = await burst({ plugin: HOST_LOCAL, conf: hlConf, prefix: 'b', command: 'ADD' });
    const agentBurstDel = await burst({
      plugin: client,
      conf: agentConf,
      prefix: 'b',
      command: 'DEL',
    });
    const hlBurstDel = await burst({
      plugin: HOST_LOCAL,
      conf: hlConf,
      prefix: 'b',
      command: 'DEL',
    });
    const s = (name: string, value: number, target?: string): BenchResult => ({
      name,
      value,
      unit: 's',
      better: 'lower',
      ...(target && { target }),
    });
    results.push(
      s(`${CONCURRENT} concurrent ADDs, through the agent (static client; wall)`, agentBurst),
      s(`${CONCURRENT} concurrent ADDs, host-local (wall)`, hlBurst),
      {
        name: `${CONCURRENT} concurrent ADDs ratio agent / host-local`,
        value: agentBurst / hlBurst,
        unit: 'x',
        better: 'lower',
        target: '<= 1.5',
      },
      s(`${CONCURRENT} concurrent DELs, through the agent (static client; wall)`, agentBurstDel),
      s(`${CONCURRENT} concurrent DELs, host-local (wall)`, hlBurstDel),
    );
  } finally {
    await agent.stop();
  }
}

async function etcdCost(dir: string, results: BenchResult[]): Promise<void> {
  const etcd = await startEtcd();
  let agent: NodeAgentFixture | undefined;
  try {
    const etcdEnv = { DATASTORE_TYPE: 'etcdv3', ETCD_ENDPOINTS: etcd.endpoints.join(',') };
    ctl(etcdEnv, ['ippool', 'create', '--name', 'bench', '--cidr', '10.73.0.0/16']);
    ctl(etcdEnv, ['node', 'create', NODE]);
    const socket = join(dir, 'etcd-run', 'node.sock');
    const plugin = install({ dir: join(dir, 'etcd-bin') });
    agent = await startNodeAgent({
      bin: AGENT,
      nodename: NODE,
      socket,
      env: { DATASTORE_TYPE: 'etcdv3', ETCD_ENDPOINTS: etcd.endpoints.join(',') },
    });
    const conf = (agentSocket: string) =>
      JSON.stringify({
        cniVersion: '1.0.0',
        name: 'etcdbench',
        ipam: {
          type: 'netledger-ipam',
          nodename: NODE,
          datastore_type: 'etcdv3',
          etcd_endpoints: etcd.endpoints.join(','),
          ipam_lock_file: join(dir, 'etcd.lock'),
          agent_socket: agentSocket,
          log_level: 'error',
        },
      });
    const count = () => etcdRequests(etcd.endpoints[0]!);
    const viaAgent = await steadyCost({ plugin, conf: conf(socket), prefix: 'a', count });
    // The fallback on its own: the agent stopped, so it is not re-syncing meanwhile.
    await agent.stop();
    agent = undefined;
    const plain = await steadyCost({
      plugin: join(BIN, 'netledger-ipam'),
      conf: conf(join(dir, 'none.sock')),
      prefix: 'x',
      count,
    });
    results.push(...costResults('etcd', viaAgent, plain));
  } finally {
    await agent?.stop();
    await etcd.stop();
  }
}

async function kubernetesCost(dir: string, results: BenchResult[]): Promise<void> {
  // Builds kube-apiserver first if it is not cached (minutes, once; tools/kube-test-apiserver).
  const api = await startKubeApiserver({ build: true, startTimeoutMs: 600_000 });
  let agent: NodeAgentFixture | undefined;
  try {
    const kubectl = async (args: string[], input?: string) => {
      const r = await api.kubectl(args, input === undefined ? {} : { input });
      if (r.status !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
    };
    await kubectl(['apply', '-f', join(ROOT, 'packages', 'datastore-k8s', 'crds')]);
    await kubectl(['apply', '-f', join(ROOT, 'apps', 'cni-plugin', 'deploy', 'rbac.yaml')]);
    await kubectl(['apply', '-f', join(ROOT, 'apps', 'node-agent', 'deploy', 'rbac.yaml')]);
    await kubectl(['wait', '--for=condition=Established', 'crd', '--all', '--timeout=60s']);
    const items = [
      { apiVersion: 'v1', kind: 'Node', metadata: { name: NODE } },
      {
        apiVersion: 'crd.projectcalico.org/v1',
        kind: 'IPPool',
        metadata: { name: 'bench' },
        spec: { cidr: '10.74.0.0/16', blockSize: 26, allowedUses: ['Workload'] },
      },
    ];
    await kubectl(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
    // Each authenticates as its own ServiceAccount, with its deploy/rbac.yaml's rights only.
    const kubeconfigAs = (app: 'cni-plugin' | 'node-agent') => {
      const path = join(dir, `${app}.kubeconfig`);
      writeFileSync(
        path,
        readFileSync(api.kubeconfigPath, 'utf8').replace(
          /^current-context: .*$/m,
          `current-context: ${JSON.stringify(api.contexts[app])}`,
        ),
      );
      return path;
    };
    const pluginKubeconfig = kubeconfigAs('cni-plugin');
    const socket = join(dir, 'k8s-run', 'node.sock');
    const plugin = install({ dir: join(dir, 'k8s-bin') });
    agent = await startNodeAgent({
      bin: AGENT,
      nodename: NODE,
      socket,
      env: { DATASTORE_TYPE: 'kubernetes', KUBECONFIG: kubeconfigAs('node-agent') },
    });
    const conf = (agentSocket: string) =>
      JSON.stringify({
        cniVersion: '1.0.0',
        name: 'k8sbench',
        datastore_type: 'kubernetes',
        kubernetes: { kubeconfig: pluginKubeconfig },
        ipam: {
          type: 'netledger-ipam',
          nodename: NODE,
          ipam_lock_file: join(dir, 'k8s.lock'),
          agent_socket: agentSocket,
          log_level: 'error',
        },
      });
    const count = () => apiRequests(api);
    const viaAgent = await steadyCost({ plugin, conf: conf(socket), prefix: 'a', count });
    await agent.stop();
    agent = undefined;
    await manyAgents({
      dir,
      plugin,
      kubectl,
      count,
      agentKubeconfig: kubeconfigAs('node-agent'),
      conf: (nodename, agentSocket) =>
        JSON.stringify({
          ...(JSON.parse(conf(agentSocket)) as Record<string, unknown>),
          ipam: {
            type: 'netledger-ipam',
            nodename,
            ipam_lock_file: join(dir, `many-${nodename}.lock`),
            agent_socket: agentSocket,
            log_level: 'error',
          },
        }),
      results,
    });
    const plain = await steadyCost({
      plugin: join(BIN, 'netledger-ipam'),
      conf: conf(join(dir, 'none.sock')),
      prefix: 'x',
      count,
    });
    results.push(...costResults('kubernetes', viaAgent, plain));
  } finally {
    await agent?.stop();
    await api.stop();
  }
}

const MANY_NODES = 10;
const MANY_ADDS = 1_000;
/** Plugin runs at once per node: the agent serves them one at a time, as a kubelet's burst. */
const PER_NODE_AT_ONCE = 4;

/**
 * `MANY_ADDS` ADDs spread over `MANY_NODES` nodes, each with its own netledger-node on the
 * Kubernetes store, all nodes at once: the wall time, and the API requests per ADD (from
 * apiserver_request_total, after every agent has synced and made its first ADD).
 */
async function manyAgents(o: {
  dir: string;
  plugin: string;
  kubectl: (args: string[], input?: string) => Promise<void>;
  count: () => Promise<Tally>;
  agentKubeconfig: string;
  conf: (nodename: string, agentSocket: string) => string;
  results: BenchResult[];
}): Promise<void> {
  const nodes = Array.from({ length: MANY_NODES }, (_, i) => `many-${i}`);
  const items = nodes.map((name) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name } }));
  await o.kubectl(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
  const agents: NodeAgentFixture[] = [];
  try {
    for (const nodename of nodes) {
      agents.push(
        await startNodeAgent({
          bin: AGENT,
          nodename,
          socket: join(o.dir, 'many', nodename, 'node.sock'),
          env: { DATASTORE_TYPE: 'kubernetes', KUBECONFIG: o.agentKubeconfig },
        }),
      );
    }
    const confOf = (nodename: string) =>
      o.conf(nodename, join(o.dir, 'many', nodename, 'node.sock'));
    // Warm: each agent synced its view and claimed its first block.
    await Promise.all(
      nodes.map((n) => must({ plugin: o.plugin, command: 'ADD', id: `${n}-w`, conf: confOf(n) })),
    );
    const before = await o.count();
    const start = performance.now();
    await Promise.all(
      nodes.map(async (nodename) => {
        const ids = Array.from({ length: MANY_ADDS / MANY_NODES }, (_, i) => `${nodename}-${i}`);
        const lane = async (k: number) => {
          for (let i = k; i < ids.length; i += PER_NODE_AT_ONCE)
            await must({ plugin: o.plugin, command: 'ADD', id: ids[i]!, conf: confOf(nodename) });
        };
        await Promise.all(Array.from({ length: PER_NODE_AT_ONCE }, (_, k) => lane(k)));
      }),
    );
    const wall = (performance.now() - start) / 1000;
    const after = await o.count();
    o.results.push(
      {
        name: `kubernetes: ${MANY_ADDS} ADDs over ${MANY_NODES} agents at once (wall)`,
        value: wall,
        unit: 's',
        better: 'lower',
      },
      requests(
        `kubernetes: reads per ADD, ${MANY_NODES} agents at once`,
        (after.reads - before.reads) / MANY_ADDS,
      ),
      requests(
        `kubernetes: writes per ADD, ${MANY_NODES} agents at once`,
        (after.writes - before.writes) / MANY_ADDS,
      ),
    );
  } finally {
    await Promise.all(agents.map((a) => a.stop()));
  }
}

async function main(): Promise<void> {
  for (const f of [AGENT, join(BIN, 'netledger-ipam')]) {
    if (!existsSync(f)) throw new Error(`${f} is missing: run pnpm build first`);
  }
  if (!existsSync(HOST_LOCAL))
    throw new Error('host-local missing: apt-get install -y containernetworking-plugins');
  const dir = await createTempDir('netledger-agent-bench-');
  const results: BenchResult[] = [];
  try {
    await latencyAndBurst(dir.path, results);
    await etcdCost(dir.path, results);
    await kubernetesCost(dir.path, results);
  } finally {
    await dir.remove().catch(() => undefined);
  }
  writeBenchResults('node-agent', {
    title: 'netledger-node, the node agent, beside its fallback and host-local',
    command: 'pnpm build && pnpm bench --filter=@netledger/node-agent',
    notes: `Latency: ${ROUNDS} rounds (after ${WARM_UP} warm-up rounds) of an ADD then a DEL on each path, interleaved so all see the same load: the plugin installed with \`netledger-ipam install\` reaching a running netledger-node through the installed static client; the same client running its Node.js fallback (its config naming a socket nobody listens on); Debian's host-local on a /16. File store; no bridge plugin. Bursts: ${CONCURRENT} ADDs started at once, then their DELs, through the agent and with host-local. Store cost (and those requests' p50): ${STEADY} sequential ADDs then their DELs after one warm-up ADD, counted by the store itself (etcd 3.4's grpc_server_started_total: Range is a read, Txn/Put/DeleteRange a write, the HTTP gateway's included; kube-apiserver's apiserver_request_total over Calico's CRDs, nodes, pods and namespaces: GET/LIST/WATCH are reads), first through the agent, then through the fallback with the agent stopped. Then ${MANY_ADDS} ADDs spread over ${MANY_NODES} nodes on the Kubernetes store, each node with its own netledger-node, all nodes at once and ${PER_NODE_AT_ONCE} plugin runs at a time per node, after each agent's first ADD: the wall time and the API requests per ADD (the agents' watches included). On Kubernetes the agent runs as the netledger-node-agent ServiceAccount (apps/node-agent/deploy/rbac.yaml), the plugin as netledger-cni-plugin.`,
    results,
  });
}

await main();
