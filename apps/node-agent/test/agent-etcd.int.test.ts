// netledger-node on etcd (through etcd's HTTP gateway, as the plugin reaches it): the agent and
// the plugin in-process find each other's handles (a repeated ADD returns what the other path
// gave, a DEL frees what the other allocated), and a steady-state ADD costs the store its writes
// only, no read (the agent's own count of what it sent).
import { join } from 'node:path';
import { createEtcdDatastore } from '@netledger/datastore-etcd';
import { createIpamClient } from '@netledger/ipam-core';
import { createTempDir, startEtcd, startNodeAgent } from '@netledger/testkit';
import type { EtcdFixture, NodeAgentFixture } from '@netledger/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CLIENT,
  AGENT,
  addressOf,
  installPlugin,
  runCni,
  served,
  statusWhenIdle,
} from './agent-harness.js';

const NODE = 'etcd-agent-node';

let tmp: { path: string; remove: () => Promise<void> };
let etcd: EtcdFixture;
let agent: NodeAgentFixture | undefined;
let plugin: string;
let socket: string;

const conf = (ipam: Record<string, unknown> = {}) => ({
  cniVersion: '1.1.0',
  name: 'etcdnet',
  ipam: {
    type: 'netledger-ipam',
    nodename: NODE,
    datastore_type: 'etcdv3',
    etcd_endpoints: etcd.endpoints.join(','),
    ipam_lock_file: join(tmp.path, 'ipam.lock'),
    agent_socket: socket,
    ...ipam,
  },
});
/** The same, run by the plugin itself: its config names a socket nobody listens on. */
const inProcess = () => conf({ agent_socket: join(tmp.path, 'nobody.sock') });

const add = async (containerId: string, c: unknown): Promise<string> => {
  const r = await runCni({ plugin, command: 'ADD', containerId, conf: c });
  if (r.status !== 0) throw new Error(`ADD ${containerId}: ${r.stdout}${r.stderr}`);
  return addressOf(r);
};

beforeAll(async () => {
  tmp = await createTempDir('netledger-agent-etcd-');
  socket = join(tmp.path, 'run', 'node.sock');
  etcd = await startEtcd();
  const ds = createEtcdDatastore({ endpoints: etcd.endpoints });
  const client = createIpamClient({ datastore: ds });
  await client.pools.create({ metadata: { name: 'pool1' }, spec: { cidr: '10.62.0.0/24' } });
  await client.nodes.create({ metadata: { name: NODE } });
  await ds.close();
  plugin = installPlugin({ dir: join(tmp.path, 'bin') });
  agent = await startNodeAgent({
    bin: AGENT,
    nodename: NODE,
    socket,
    env: { DATASTORE_TYPE: 'etcdv3', ETCD_ENDPOINTS: etcd.endpoints.join(',') },
  });
}, 120_000);

afterAll(async () => {
  await agent?.stop('SIGKILL');
  await etcd?.stop();
  await tmp?.remove();
});

describe('netledger-node on etcd', () => {
  it('the agent and the plugin in-process share handles: a repeated ADD on the other path returns the same address, a DEL on the other frees it', async () => {
    const a = agent!;
    const viaAgent = await add('x-agent', conf());
    expect(await add('x-agent', inProcess())).toBe(viaAgent);
    const viaPlugin = await add('x-plugin', inProcess());
    expect(await add('x-plugin', conf())).toBe(viaPlugin);
    expect(viaPlugin).not.toBe(viaAgent);
    const { requests } = await statusWhenIdle(a);
    const count = (outcome: string) =>
      served(requests, { command: 'ADD', client: CLIENT, outcome });
    expect(count('answered')).toBe(2); // x-agent, and x-plugin again (its handle was there)
    // Cross-path DELs free both.
    for (const [id, c] of [
      ['x-agent', inProcess()],
      ['x-plugin', conf()],
    ] as const) {
      const r = await runCni({ plugin, command: 'DEL', containerId: id, conf: c });
      expect(r.status, r.stdout).toBe(0);
    }
    const ds = createEtcdDatastore({ endpoints: etcd.endpoints });
    try {
      const client = createIpamClient({ datastore: ds });
      await expect(client.ipsByHandle('etcdnet.x-agent')).rejects.toMatchObject({
        code: 'DoesNotExist',
      });
      await expect(client.ipsByHandle('etcdnet.x-plugin')).rejects.toMatchObject({
        code: 'DoesNotExist',
      });
    } finally {
      await ds.close();
    }
  });

  it('a steady-state ADD reads its handle and sends one transaction: no block read, no list', async () => {
    const a = agent!;
    await add('warm', conf()); // the block exists and the agent wrote it last
    const before = (await a.status()).datastoreRequests;
    const ADDS = 10;
    for (let i = 0; i < ADDS; i++) await add(`steady-${i}`, conf());
    const after = (await a.status()).datastoreRequests;
    const delta = Object.fromEntries(
      Object.entries(after)
        .map(([op, n]) => [op, n - (before[op] ?? 0)] as const)
        .filter(([, n]) => n > 0),
    );
    // Per ADD: a read of its handle (absent: a new container; a repeated ADD returns what it
    // holds), then one etcd transaction, the handle's create and the block's CAS update. The
    // block comes from the agent's mirror.
    expect(delta).toEqual({ get: ADDS, transact: ADDS });
  });

  it('a steady-state DEL reads its handle and the legacy workload ID, and sends one transaction', async () => {
    const a = agent!;
    const before = (await a.status()).datastoreRequests;
    const DELS = 10;
    for (let i = 0; i < DELS; i++) {
      const r = await runCni({ plugin, command: 'DEL', containerId: `steady-${i}`, conf: conf() });
      expect(r.status, r.stdout).toBe(0);
    }
    const after = (await a.status()).datastoreRequests;
    const delta = Object.fromEntries(
      Object.entries(after)
        .map(([op, n]) => [op, n - (before[op] ?? 0)] as const)
        .filter(([, n]) => n > 0),
    );
    // Per DEL: reads of its handle and of the legacy ID (the container ID, which calico-ipam also
    // releases, not there), then one etcd transaction, the block's CAS update and the handle's CAS
    // delete. The block comes from the agent's mirror.
    expect(delta).toEqual({ get: 2 * DELS, transact: DELS });
  });
});
