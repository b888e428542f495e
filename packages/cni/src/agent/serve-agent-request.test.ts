// The agent's request path in-process, on the memory store: the same answers as the plugin's own
// path, the requests it sends back, and what a steady-state ADD costs the store (writes only).
import { createIpamClient, createMemoryDatastore } from '@netledger/ipam-core';
import type { Datastore } from '@netledger/ipam-core';
import { DEFAULT_MIRRORED_KINDS, createMirroredDatastore } from '@netledger/ipam-core/adapter';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_AGENT_SOCKET } from '../net-conf.js';
import type { PluginDeps } from '../plugin-deps.js';
import { runCniPlugin } from '../run-plugin.js';
import type { AgentScope, AgentServeResult } from './serve-agent-request.js';
import { serveAgentRequest } from './serve-agent-request.js';
import { storeIdentity } from './store-identity.js';

const NODE = 'node-a';
const READS = new Set(['get', 'list', 'listMany']);
const WRITES = new Set(['create', 'update', 'apply', 'delete', 'transact']);

/** A store recording the operations sent to it. */
function counting(inner: Datastore): { ds: Datastore; ops: string[] } {
  const ops: string[] = [];
  const ds = new Proxy(inner, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== 'function' || typeof prop !== 'string') return v;
      return (...args: unknown[]) => {
        if (prop === 'transact')
          ops.push(`transact:${(args[0] as { op: string }[]).map((w) => w.op).join('+')}`);
        else if (READS.has(prop) || WRITES.has(prop)) ops.push(prop);
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { ds, ops };
}

const noClose = (ds: Datastore): Datastore =>
  new Proxy(ds, {
    get: (t, k, r) => (k === 'close' ? async () => undefined : (Reflect.get(t, k, r) as unknown)),
  });

async function seeded(): Promise<Datastore> {
  const ds = createMemoryDatastore();
  const c = createIpamClient({ datastore: ds });
  await c.pools.create({ metadata: { name: 'pool0' }, spec: { cidr: '10.1.0.0/24' } });
  await c.nodes.create({ metadata: { name: NODE } });
  return ds;
}

const baseDeps = {
  readFile: async () => undefined,
  osHostname: () => 'os-host',
  acquireLock: async () => ({ release: async () => undefined }),
} satisfies Partial<PluginDeps>;

const scope: AgentScope = {
  nodename: NODE,
  socketPath: DEFAULT_AGENT_SOCKET,
  store: 'file:/var/lib/netledger/datastore.json',
  storeOf: (c) => storeIdentity(c, '/var/lib/netledger/datastore.json'),
};

const env = (command: string, containerId = 'c1', extra: Record<string, string> = {}) => ({
  CNI_COMMAND: command,
  CNI_CONTAINERID: containerId,
  CNI_NETNS: '/var/run/netns/x',
  CNI_IFNAME: 'eth0',
  CNI_PATH: '/opt/cni/bin',
  ...extra,
});

const conf = (over: Record<string, unknown> = {}, ipam: Record<string, unknown> = {}) =>
  JSON.stringify({
    cniVersion: '1.1.0',
    name: 'net1',
    ...over,
    ipam: { type: 'netledger-ipam', nodename: NODE, ...ipam },
  });

/** An agent over its own memory store, and the plugin's in-process path over a twin store. */
async function setUp() {
  const raw = counting(await seeded());
  // As netledger-node's view: what assignments read, and the blocks.
  const mirrored = createMirroredDatastore(raw.ds, {
    kinds: [...DEFAULT_MIRRORED_KINDS, 'IPAMBlock'],
  });
  const shared = noClose(mirrored);
  const logged: string[] = [];
  const agentDeps: PluginDeps = { ...baseDeps, openDatastore: async () => shared };
  const twin = noClose(await seeded());
  const plainDeps: PluginDeps = { ...baseDeps, openDatastore: async () => twin };
  return {
    raw,
    logged,
    close: () => mirrored.close(),
    serve: (e: Record<string, string>, stdin: string, signal?: AbortSignal) =>
      serveAgentRequest({
        request: { env: e, stdin },
        scope,
        deps: agentDeps,
        log: (_, line) => logged.push(line),
        ...(signal && { signal }),
      }),
    plain: (e: Record<string, string>, stdin: string) => runCniPlugin({ env: e, stdin }, plainDeps),
  };
}

let agent: Awaited<ReturnType<typeof setUp>> | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

const answered = (r: AgentServeResult) => {
  if (r.kind !== 'answer') throw new Error(`not answered: ${r.reason}`);
  return r;
};

describe('serveAgentRequest answers as the plugin does', () => {
  it('ADD, CHECK, repeated ADD, DEL, DEL again, GC, STATUS, and errors: the same outputs', async () => {
    agent = await setUp();
    const steps: [Record<string, string>, string][] = [
      [env('ADD', 'c1'), conf()],
      [env('ADD', 'c2'), conf()],
      [env('ADD', 'c1'), conf()], // repeated: what c1 holds
      [env('ADD', 'c1', { CNI_IFNAME: 'net1' }), conf()],
      [env('DEL', 'c2'), conf()],
      [env('DEL', 'c2'), conf()], // never mind: already gone
      [env('CHECK', 'c2'), conf()], // fails: c2 holds nothing
      [env('ADD', 'c3'), conf({}, { ipv4_pools: ['nope'] })], // 7: no such pool
      [env('ADD', 'c4'), '{"name": '], // 6: not JSON
      [env('ADD', 'c5'), conf({ cniVersion: '0.2.0' })], // 1
      [env('GC'), conf({ 'cni.dev/valid-attachments': [{ containerID: 'c1' }] })],
      [env('STATUS'), conf()],
      [env('ADD', 'c6', { CNI_ARGS: 'IP=10.1.0.77' }), conf()],
    ];
    for (const [e, stdin] of steps) {
      const viaAgent = answered(await agent.serve(e, stdin));
      const plain = await agent.plain(e, stdin);
      // stderr aside: the agent returns the log lines the plugin writes to its own stderr.
      const { stdout, exitCode } = viaAgent.output;
      expect({ stdout, exitCode }, `${e['CNI_COMMAND']} ${e['CNI_CONTAINERID']}`).toEqual({
        stdout: plain.stdout,
        exitCode: plain.exitCode,
      });
    }
  });

  it('a repeated ADD, run once, returns what the first ADD returned and writes nothing', async () => {
    agent = await setUp();
    const first = answered(await agent.serve(env('ADD'), conf()));
    agent.raw.ops.length = 0;
    const again = answered(await agent.serve(env('ADD'), conf()));
    expect(again).toMatchObject({ output: { stdout: first.output.stdout, exitCode: 0 } });
    expect(again.output.stderr).toMatch(/^\S+ \[INFO\] ADD repeated for net1\.c1/);
    expect(agent.raw.ops.filter((op) => !READS.has(op))).toEqual([]);
  });

  it('a steady-state ADD reads its handle and sends one transaction (no block read); a DEL one transaction', async () => {
    agent = await setUp();
    answered(await agent.serve(env('ADD', 'warm'), conf())); // syncs the mirror, claims a block
    for (let i = 0; i < 5; i++) {
      agent.raw.ops.length = 0;
      answered(await agent.serve(env('ADD', `c${i}`), conf()));
      // The handle (absent: a new container), then the handle and the block in one transaction.
      expect(agent.raw.ops).toEqual(['get', 'transact:create+update']);
    }
    agent.raw.ops.length = 0;
    answered(await agent.serve(env('DEL', 'c0'), conf()));
    expect(agent.raw.ops.filter((op) => !READS.has(op))).toEqual(['transact:update+delete']);
  });

  it('passes log lines on and returns them as standard error', async () => {
    agent = await setUp();
    const r = answered(await agent.serve(env('ADD'), conf({}, { log_level: 'debug' })));
    expect(r.output.stderr).toContain('[INFO] ADD net1.c1: 10.1.0.');
    expect(agent.logged.join('')).toBe(r.output.stderr);
  });
});

describe('serveAgentRequest sends back what is not its to serve', () => {
  it.each<[string, string, string]>([
    [
      'another agent socket',
      conf({}, { agent_socket: '/run/other.sock' }),
      'the config names agent_socket /run/other.sock',
    ],
    [
      'another store',
      conf({}, { datastore_path: '/tmp/other.json' }),
      "the config's store is file:/tmp/other.json",
    ],
    [
      'etcd',
      conf({}, { datastore_type: 'etcdv3', etcd_endpoints: 'http://e:2379' }),
      "the config's store is etcdv3:http://e:2379",
    ],
    ['another node', conf({}, { nodename: 'node-b' }), "the config's node is node-b"],
  ])('%s', async (_, stdin, reason) => {
    agent = await setUp();
    agent.raw.ops.length = 0;
    const r = await agent.serve(env('ADD'), stdin);
    expect(r).toEqual({ kind: 'fallback', reason: expect.stringContaining(reason) });
    expect(agent.raw.ops).toEqual([]);
  });

  it('an ADD whose client went away is not run', async () => {
    agent = await setUp();
    answered(await agent.serve(env('ADD', 'warm'), conf()));
    agent.raw.ops.length = 0;
    agent.logged.length = 0;
    const gone = new AbortController();
    gone.abort();
    const r = await agent.serve(env('ADD'), conf(), gone.signal);
    expect(r).toEqual({ kind: 'not-run', reason: expect.stringContaining('client went away') });
    expect(agent.logged).toEqual([]);
    expect(agent.raw.ops.filter((op) => !READS.has(op))).toEqual([]);
  });
});
