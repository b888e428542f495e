// A hung agent (stopped with SIGSTOP) must not hang pod starts: the static client gives up on an
// answer after `agent_answer_timeout` with "try again later" (11), a client that cannot even connect (the
// agent's queue full) runs the ADD itself after `agent_connect_timeout`, and once the agent runs
// again it allocates nothing for the requests whose clients gave up. A client that goes away in
// the middle of its request costs one log line.
import { createConnection } from 'node:net';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { createFileDatastore } from '@netledger/datastore-file';
import { createIpamClient, isIpamError } from '@netledger/ipam-core';
import { createTempDir, startNodeAgent } from '@netledger/testkit';
import type { NodeAgentFixture } from '@netledger/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { AGENT, CLIENT, addressOf, ctl, installPlugin, runCni, served } from './agent-harness.js';

const NODE = 'stopped-node';

let tmp: { path: string; remove: () => Promise<void> };
let socket: string;
let store: string;
let plugin: string;
let agent: NodeAgentFixture | undefined;
let stopped = false;
const fillers: Socket[] = [];

const conf = (ipam: Record<string, unknown> = {}) => ({
  cniVersion: '1.1.0',
  name: 'stopnet',
  ipam: {
    type: 'netledger-ipam',
    nodename: NODE,
    datastore_path: store,
    ipam_lock_file: join(tmp.path, 'ipam.lock'),
    agent_socket: socket,
    agent_connect_timeout: 1,
    agent_answer_timeout: 1,
    ...ipam,
  },
});

/** What a handle holds in the store ([] when it does not exist). */
async function held(handleId: string): Promise<string[]> {
  const ds = await createFileDatastore({ path: store });
  try {
    return await createIpamClient({ datastore: ds })
      .ipsByHandle(handleId)
      .catch((e: unknown) => {
        if (isIpamError(e, 'DoesNotExist')) return [];
        throw e;
      });
  } finally {
    await ds.close();
  }
}

const notRun = async (a: NodeAgentFixture, client: string): Promise<number> =>
  served((await a.status()).requests, { command: 'ADD', client, outcome: 'not-run' });

beforeAll(async () => {
  tmp = await createTempDir('netledger-agent-stopped-');
  socket = join(tmp.path, 'run', 'node.sock');
  store = join(tmp.path, 'store', 'datastore.json');
  ctl(store, ['ippool', 'create', '--name', 'pool1', '--cidr', '10.65.0.0/24']);
  plugin = installPlugin({ dir: join(tmp.path, 'bin') });
}, 120_000);

afterEach(async () => {
  for (const f of fillers.splice(0)) f.destroy();
  if (agent && stopped) process.kill(agent.pid, 'SIGCONT');
  stopped = false;
  await agent?.stop('SIGKILL');
  agent = undefined;
});

afterAll(async () => {
  await tmp?.remove();
});

describe('netledger-node stopped (SIGSTOP)', () => {
  it('clients give up after agent_answer_timeout (11) or run the ADD themselves when they cannot connect; resumed, the agent allocates nothing for the abandoned ADDs', async () => {
    const a = (agent = await startNodeAgent({
      bin: AGENT,
      nodename: NODE,
      socket,
      env: { NETLEDGER_DATASTORE_PATH: store },
    }));
    const warm = await runCni({
      plugin,
      command: 'ADD',
      containerId: 'warm',
      conf: conf(),
    });
    expect(warm.status, warm.stdout).toBe(0);
    process.kill(a.pid, 'SIGSTOP');
    stopped = true;

    // Connected and sent: the stopped agent's queue holds them; no answer comes.
    for (const containerId of ['hung-1', 'hung-2']) {
      const r = await runCni({ plugin, command: 'ADD', containerId, conf: conf() });
      expect(r.status, `${containerId}: ${r.stdout}${r.stderr}`).toBe(1);
      expect(r.json).toMatchObject({
        code: 11,
        msg: expect.stringMatching(/did not answer within 1 s: try again later$/),
      });
    }

    // Its queue full: the client cannot connect, gives up after 1 s and runs the ADD itself.
    for (;;) {
      const refused = await new Promise<boolean>((resolve) => {
        const c = createConnection({ path: socket });
        fillers.push(c);
        c.once('connect', () => resolve(false));
        c.once('error', () => resolve(true));
      });
      if (refused) break;
      if (fillers.length > 5000) throw new Error('the agent’s queue never filled');
    }
    const itself = await runCni({
      plugin,
      command: 'ADD',
      containerId: 'itself',
      conf: conf(),
    });
    expect(itself.status, itself.stdout + itself.stderr).toBe(0);
    for (const f of fillers.splice(0)) f.destroy();

    process.kill(a.pid, 'SIGCONT');
    stopped = false;
    // Resumed, it reads the two requests whose clients are gone, and does nothing for them: not
    // run, as they never took the host lock.
    await vi.waitFor(
      async () => {
        expect(await notRun(a, CLIENT)).toBe(2);
      },
      { timeout: 30_000, interval: 50 },
    );
    expect(await held('stopnet.hung-1')).toEqual([]);
    expect(await held('stopnet.hung-2')).toEqual([]);
    expect(await held('stopnet.itself')).toEqual([addressOf(itself)]);
    expect(a.log()).toMatch(
      /\[WARNING\] ADD from netledger-ipam: not-run \(the client went away before the host lock was taken; nothing done\)/,
    );
    expect(a.log()).not.toMatch(/\n\s+at /);
    // The runtime's retry, once the agent runs again: answered by the agent.
    const retry = await runCni({
      plugin,
      command: 'ADD',
      containerId: 'hung-1',
      conf: conf(),
    });
    expect(retry.status, retry.stdout).toBe(0);
    expect(await held('stopnet.hung-1')).toEqual([addressOf(retry)]);
  }, 120_000);

  it('a client closing its connection in the middle of its request costs one log line, no stack trace', async () => {
    const a = (agent = await startNodeAgent({
      bin: AGENT,
      nodename: NODE,
      socket,
      env: { NETLEDGER_DATASTORE_PATH: store },
    }));
    const before = a.log().length;
    const s = createConnection({ path: socket });
    await new Promise<void>((resolve) =>
      s.write('POST /v1/cni HTTP/1.0\r\nUser-Agent: cut\r\nContent-Length: 1000\r\n\r\nCNI_', () =>
        resolve(),
      ),
    );
    await vi.waitFor(async () => expect((await a.status()).inFlight).toBe(1), { timeout: 20_000 });
    s.destroy();
    await vi.waitFor(
      async () =>
        expect(
          served((await a.status()).requests, {
            command: 'unknown',
            client: 'cut',
            outcome: 'abandoned',
          }),
        ).toBe(1),
      { timeout: 20_000 },
    );
    // The line reaches us through the agent's stderr pipe, which may trail its counters.
    await vi.waitFor(() =>
      expect(a.log().slice(before)).toMatch(
        /\[WARNING\] unknown from cut: abandoned \(the client closed its connection mid-request; nothing done\)/,
      ),
    );
    expect(a.log().slice(before).trimEnd().split('\n')).toHaveLength(1);
  });
});
