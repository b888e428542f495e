// The agent's endpoint (@netledger/agent) on a real unix socket, serving the plugin
// (@netledger/cni/agent) over a memory store, as netledger-node wires them, with clients
// that go away: before their request is read, while their ADD waits for the host lock, and in the
// middle of their ADD's write. Nothing they asked for stays allocated, and each costs one log line.
import { createConnection } from 'node:net';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { createIpamClient, createMemoryDatastore, isIpamError } from '@netledger/ipam-core';
import type { Datastore, TransactionWrite } from '@netledger/ipam-core';
import { forwardingDatastore } from '@netledger/ipam-core/adapter';
import { createTempDir } from '@netledger/testkit';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { agentHttpRequest, startAgentServer } from '@netledger/agent';
import type { AgentServer, RequestOutcome } from '@netledger/agent';
import { createLogger } from '@netledger/cni';
import type { HostLock, HostLockOptions, PluginDeps } from '@netledger/cni';
import { serveAgentRequest, storeIdentity } from '@netledger/cni/agent';

const NODE = 'node-a';
const STORE = '/var/lib/netledger/datastore.json';

/** A gate: `wait()` blocks until `open()`; `entered` resolves when the first waiter arrives. */
function gate(): { wait: () => Promise<void>; open: () => void; entered: Promise<void> } {
  let open!: () => void;
  let enter!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const entered = new Promise<void>((resolve) => (enter = resolve));
  return {
    wait: () => {
      enter();
      return opened;
    },
    open,
    entered,
  };
}

interface Harness {
  readonly socket: string;
  readonly lines: string[];
  readonly events: string[];
  readonly outcomes: RequestOutcome[];
  readonly store: Datastore;
  /** Every transaction waits for this gate, when one is set. */
  writeGate?: ReturnType<typeof gate>;
  /** Taking the host lock waits for this gate, when one is set. */
  lockGate?: ReturnType<typeof gate>;
  readonly signals: AbortSignal[];
  readonly server: AgentServer;
  readonly remove: () => Promise<void>;
}

let h: Harness | undefined;
afterEach(async () => {
  h?.writeGate?.open();
  h?.lockGate?.open();
  await h?.server.stop(1000);
  await h?.remove();
  h = undefined;
});

async function start(): Promise<Harness> {
  const dir = await createTempDir('netledger-agent-server-');
  const memory = createMemoryDatastore();
  const seed = createIpamClient({ datastore: memory });
  await seed.pools.create({ metadata: { name: 'pool0' }, spec: { cidr: '10.1.0.0/24' } });
  await seed.nodes.create({ metadata: { name: NODE } });
  const events: string[] = [];
  const partial: Omit<Harness, 'server' | 'remove'> = {
    socket: join(dir.path, 'run', 'node.sock'),
    lines: [],
    events,
    outcomes: [],
    store: memory,
    signals: [],
  };
  const self = partial as Harness;
  // The store writes as the agent sends them, each transaction recorded (and held at the gate).
  const gated: Datastore = {
    ...forwardingDatastore(memory),
    async transact(writes: readonly TransactionWrite[]) {
      events.push(`transact:${writes.map((w) => w.op).join('+')}`);
      await self.writeGate?.wait();
      return memory.transact!(writes);
    },
  };
  const shared: Datastore = { ...gated, close: async () => undefined };
  const deps: PluginDeps = {
    openDatastore: async () => shared,
    readFile: async () => undefined,
    osHostname: () => NODE,
    acquireLock: async (_: HostLockOptions): Promise<HostLock> => {
      await self.lockGate?.wait();
      events.push('lock');
      return { release: async () => void events.push('unlock') };
    },
  };
  const server = await startAgentServer({
    socketPath: partial.socket,
    serve: (request, signal) => {
      partial.signals.push(signal);
      return serveAgentRequest({
        request,
        scope: {
          nodename: NODE,
          socketPath: partial.socket,
          store: storeIdentity({ type: 'file', path: STORE }, STORE),
          storeOf: (c) => storeIdentity(c, STORE),
        },
        deps,
        log: () => undefined,
        signal,
      });
    },
    status: () => ({ ready: true }),
    metrics: async () => '',
    onRequest: ({ outcome }) => void partial.outcomes.push(outcome),
    log: createLogger({ level: 'debug', write: (l) => void partial.lines.push(l) }),
  });
  return Object.assign(self, { server, remove: dir.remove });
}

const request = (socket: string, containerId: string) =>
  agentHttpRequest(
    {
      env: {
        CNI_COMMAND: 'ADD',
        CNI_CONTAINERID: containerId,
        CNI_NETNS: '/var/run/netns/x',
        CNI_IFNAME: 'eth0',
        CNI_PATH: '/opt/cni/bin',
      },
      stdin: JSON.stringify({
        cniVersion: '1.1.0',
        name: 'net1',
        ipam: {
          type: 'netledger-ipam',
          nodename: NODE,
          datastore_path: STORE,
          agent_socket: socket,
        },
      }),
    },
    'test-client',
  );

/** Connects, sends `bytes`, and resolves with the socket once it is written. */
const send = (socket: string, bytes: Buffer): Promise<Socket> =>
  new Promise((resolve, reject) => {
    const s = createConnection({ path: socket });
    s.on('error', reject);
    s.write(bytes, () => resolve(s));
  });

/** What the handle holds in the store ([] when it does not exist). */
async function held(store: Datastore, handleId: string): Promise<string[]> {
  return createIpamClient({ datastore: store })
    .ipsByHandle(handleId)
    .catch((e: unknown) => {
      if (isIpamError(e, 'DoesNotExist')) return [];
      throw e;
    });
}

describe('the agent endpoint when its client goes away', () => {
  it('answers a client that stays: its allocation is kept, the lock released after the answer', async () => {
    h = await start();
    const s = await send(h.socket, request(h.socket, 'stays'));
    const raw = await new Promise<Buffer>((resolve) => {
      const chunks: Buffer[] = [];
      s.on('data', (c: Buffer) => chunks.push(c));
      s.on('close', () => resolve(Buffer.concat(chunks)));
    });
    // The head of a served request (agent-protocol.ts answerResponse): a 200, exit status 0.
    const head = raw.toString('latin1', 0, raw.indexOf('\r\n\r\n')).toLowerCase();
    expect(head).toMatch(/^http\/1\.[01] 200 /);
    expect(head).toContain('\r\nx-cni-exit-code: 0');
    await vi.waitFor(() => expect(h!.outcomes).toEqual(['answered']));
    expect(await held(h.store, 'net1.stays')).toHaveLength(1);
    expect(h.events).toEqual(['lock', 'transact:create+update', 'unlock']);
  });

  it('a client that disconnects in the middle of its ADD: the ADD is rolled back under the same host lock, one log line', async () => {
    h = await start();
    h.writeGate = gate();
    const s = await send(h.socket, request(h.socket, 'leaves'));
    await h.writeGate.entered; // the ADD holds the lock and is writing its handle and block
    s.destroy();
    await vi.waitFor(() => expect(h!.signals[0]?.aborted).toBe(true));
    h.writeGate.open();
    await vi.waitFor(() => expect(h!.outcomes).toEqual(['abandoned']));
    expect(await held(h.store, 'net1.leaves')).toEqual([]);
    // The rollback's write (the block, the handle's delete) comes before the lock is released.
    expect(h.events).toEqual([
      'lock',
      'transact:create+update',
      'transact:update+delete',
      'unlock',
    ]);
    const block = await h.store.list({ kind: 'IPAMBlock' });
    expect(block.items.map((kv) => kv.value.allocations.filter((a) => a !== null))).toEqual([[]]);
    expect(h.lines).toHaveLength(1);
    expect(h.lines[0]).toMatch(
      /\[WARNING\] ADD from test-client: abandoned \(exit 0; the client went away before its answer; rolled back: released 10\.1\.0\.\d+\/\d+ \(handle net1\.leaves\)\) in/,
    );
  });

  it('a client that disconnects while its ADD waits for the host lock: not run, nothing done, logged as not run', async () => {
    h = await start();
    h.lockGate = gate();
    const s = await send(h.socket, request(h.socket, 'early'));
    await h.lockGate.entered;
    s.destroy();
    await vi.waitFor(() => expect(h!.signals[0]?.aborted).toBe(true));
    h.lockGate.open();
    await vi.waitFor(() => expect(h!.outcomes).toEqual(['not-run']));
    expect(h.events).toEqual(['lock', 'unlock']);
    expect(await held(h.store, 'net1.early')).toEqual([]);
    expect(h.lines).toHaveLength(1);
    expect(h.lines[0]).toMatch(
      /\[WARNING\] ADD from test-client: not-run \(the client went away before the host lock was taken; nothing done\) in/,
    );
  });

  it('a client that closes its connection in the middle of its request: one line, no stack trace, nothing done', async () => {
    h = await start();
    const whole = request(h.socket, 'cut');
    const s = await send(h.socket, whole.subarray(0, whole.length - 10));
    await vi.waitFor(() => expect(h!.server.inFlight()).toBe(1));
    s.destroy();
    await vi.waitFor(() => expect(h!.outcomes).toEqual(['abandoned']));
    expect(h.lines).toHaveLength(1);
    expect(h.lines[0]).toMatch(
      /\[WARNING\] unknown from test-client: abandoned \(the client closed its connection mid-request; nothing done\)/,
    );
    expect(h.lines.join('')).not.toMatch(/\n\s+at /);
    expect(h.events).toEqual([]);
  });
});
