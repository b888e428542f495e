// The agent's request path writing each request's log lines to its `log_file_path` (request-log.ts)
// with calico-ipam's rotation: 10,000 ADDs under a 1 MB `log_file_max_size`.
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createIpamClient, createMemoryDatastore } from '@netledger/ipam-core';
import type { Datastore } from '@netledger/ipam-core';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_AGENT_SOCKET } from '../net-conf.js';
import type { PluginDeps } from '../plugin-deps.js';
import { appendRequestLog } from './request-log.js';
import { serveAgentRequest } from './serve-agent-request.js';
import { storeIdentity } from './store-identity.js';

const NODE = 'node-a';
const ADDS = 10_000;
const MB = 1024 * 1024;

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

async function seeded(): Promise<Datastore> {
  const ds = createMemoryDatastore();
  const c = createIpamClient({ datastore: ds });
  await c.pools.create({ metadata: { name: 'pool0' }, spec: { cidr: '10.1.0.0/24' } });
  await c.nodes.create({ metadata: { name: NODE } });
  return ds;
}

describe('appendRequestLog on the agent request path', () => {
  it('10,000 ADDs (and DELs) with log_file_max_size 1: files of at most 1 MB, no line lost or torn', async () => {
    dir = mkdtempSync(join(tmpdir(), 'request-log-'));
    const logPath = join(dir, 'cni.log');
    const ds = await seeded();
    const shared: Datastore = { ...ds, close: async () => undefined };
    const deps: PluginDeps = {
      readFile: async () => undefined,
      osHostname: () => 'os-host',
      acquireLock: async () => ({ release: async () => undefined }),
      openDatastore: async () => shared,
    };
    const stdin = JSON.stringify({
      cniVersion: '1.1.0',
      name: 'net1',
      ipam: {
        type: 'netledger-ipam',
        nodename: NODE,
        log_level: 'debug',
        log_file_path: logPath,
        log_file_max_size: 1,
        log_file_max_count: 1000,
      },
    });
    let expected = '';
    const serve = (command: string, i: number) =>
      serveAgentRequest({
        request: {
          env: {
            CNI_COMMAND: command,
            CNI_CONTAINERID: `c${i}`,
            CNI_NETNS: '/var/run/netns/x',
            CNI_IFNAME: 'eth0',
            CNI_PATH: '/opt/cni/bin',
          },
          stdin,
        },
        scope: {
          nodename: NODE,
          socketPath: DEFAULT_AGENT_SOCKET,
          store: 'file:/var/lib/netledger/datastore.json',
          storeOf: (c) => storeIdentity(c, '/var/lib/netledger/datastore.json'),
        },
        deps,
        log: appendRequestLog,
      });
    // Each ADD is followed by its DEL, so the node's one block serves them all.
    const addDel = async (i: number): Promise<void> => {
      const r = await serve('ADD', i);
      if (r.kind !== 'answer' || r.output.exitCode !== 0)
        throw new Error(`ADD c${i} failed: ${JSON.stringify(r)}`);
      expected += r.output.stderr;
      await r.settle?.(true);
      const d = await serve('DEL', i);
      if (d.kind !== 'answer' || d.output.exitCode !== 0) throw new Error(`DEL c${i} failed`);
      expected += d.output.stderr;
    };
    // Four requests in flight at a time, as the agent serves concurrent clients.
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < ADDS) await addDel(next++);
    };
    await Promise.all([worker(), worker(), worker(), worker()]);

    const files = readdirSync(dir).sort();
    expect(files.length).toBeGreaterThan(2);
    for (const f of files) expect(statSync(join(dir, f)).size).toBeLessThanOrEqual(MB);
    const lines = files.flatMap((f) =>
      readFileSync(join(dir!, f), 'utf8').split('\n').slice(0, -1),
    );
    for (const line of lines) expect(line).toMatch(/^\S+Z \[(DEBUG|INFO)\] \S.*$/);
    // Every line each request returned is in the files once: none lost, none doubled.
    const want = expected.split('\n').slice(0, -1);
    expect(lines).toHaveLength(want.length);
    expect([...lines].sort()).toEqual([...want].sort());
    const added = new Set(lines.flatMap((l) => /\] ADD net1\.(c\d+): /.exec(l)?.[1] ?? []));
    expect(added.size).toBe(ADDS);
  }, 600_000);
});
