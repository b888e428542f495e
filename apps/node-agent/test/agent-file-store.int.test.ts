// netledger-node on the file store, driven by the installed plugin (its Perl client and its Node
// client) as a runtime drives it: the same answers as the plugin's own path, the socket only root
// can use, malformed requests refused, requests for another node sent back, and what a SIGTERM or
// a kill -9 in the middle of a burst of ADDs does (nothing lost, nothing doubled).
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createConnection } from 'node:net';
import { dirname, join } from 'node:path';
import { createFileDatastore } from '@netledger/datastore-file';
import { createIpamClient, isIpamError } from '@netledger/ipam-core';
import { createTempDir, startNodeAgent } from '@netledger/testkit';
import type { NodeAgentFixture } from '@netledger/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  addressOf,
  AGENT,
  CLIENT,
  ctl,
  holdHostLock,
  installPlugin,
  runCni,
  served,
  statusWhenIdle,
} from './agent-harness.js';
import type { CniRun } from './agent-harness.js';

const NODE = 'agent-node';

let tmp: { path: string; remove: () => Promise<void> };
let socket: string;
let store: string;
let twinStore: string;
let lockFile: string;
let plugin: string;
let agent: NodeAgentFixture | undefined;

const conf = (ipam: Record<string, unknown> = {}) => ({
  cniVersion: '1.1.0',
  name: 'agentnet',
  ipam: {
    type: 'netledger-ipam',
    nodename: NODE,
    datastore_path: store,
    ipam_lock_file: lockFile,
    agent_socket: socket,
    ...ipam,
  },
});

const start = async (): Promise<NodeAgentFixture> => {
  agent = await startNodeAgent({
    bin: AGENT,
    nodename: NODE,
    socket,
    env: { NETLEDGER_DATASTORE_PATH: store },
  });
  return agent;
};

/** Handles of the store and their addresses (through a fresh file store instance). */
async function allocations(path: string): Promise<Map<string, string[]>> {
  const ds = await createFileDatastore({ path });
  try {
    const client = createIpamClient({ datastore: ds });
    const out = new Map<string, string[]>();
    for (const { key } of (await ds.list({ kind: 'IPAMHandle' })).items) {
      const ips = await client.ipsByHandle(key.handleId).catch((e: unknown) => {
        if (isIpamError(e, 'DoesNotExist')) return [];
        throw e;
      });
      if (ips.length > 0) out.set(key.handleId, ips);
    }
    return out;
  } finally {
    await ds.close();
  }
}

/**
 * `netledgerctl ipam check`'s verdict on a consistent store: each allocation's handle exists with
 * it, no handle without allocations, every block valid. The file store has no workloads, so its
 * allocations all count as "not in use", the only problems found.
 */
const AUDIT_CLEAN = new RegExp(
  [
    'IPAM blocks record (\\d+) allocations\\.',
    '[^]*Found 0 handles with no matching IPs \\(and \\d+ handles with matches\\)\\.',
    'Scanning for IPs with missing handle\\.\\.\\.',
    'Found 0 handles mentioned in blocks with no matching handle resource\\.',
    'Validating IPAMBlock structures\\.\\.\\.',
    'Found 0 invalid IPAMBlocks\\.',
    'Check complete; found \\1 problems\\.',
  ].join('\\n'),
);

beforeAll(async () => {
  tmp = await createTempDir('netledger-agent-file-');
  socket = join(tmp.path, 'run', 'netledger', 'node.sock');
  store = join(tmp.path, 'store', 'datastore.json');
  twinStore = join(tmp.path, 'twin', 'datastore.json');
  lockFile = join(tmp.path, 'lock', 'ipam.lock');
  for (const path of [store, twinStore]) {
    ctl(path, ['ippool', 'create', '--name', 'pool1', '--cidr', '10.61.0.0/24']);
  }
  plugin = installPlugin({ dir: join(tmp.path, 'bin') });
}, 120_000);

afterEach(async () => {
  await agent?.stop('SIGKILL');
  agent = undefined;
});

afterAll(async () => {
  await tmp?.remove();
});

describe('netledger-node on the file store', () => {
  it('listens on a socket only root can use: 0600 in a 0700 directory; another user is refused', async () => {
    await start();
    expect(statSync(socket).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(socket)).mode & 0o777).toBe(0o700);
    expect(statSync(socket).uid).toBe(0);
    const asNobody = spawnSync(
      'setpriv',
      [
        '--reuid=65534',
        '--regid=65534',
        '--clear-groups',
        process.execPath,
        '-e',
        `require('node:net').createConnection({ path: ${JSON.stringify(socket)} })
          .on('connect', () => { console.log('connected'); process.exit(0); })
          .on('error', (e) => { console.log(e.code); process.exit(0); });`,
      ],
      { encoding: 'utf8' },
    );
    expect(asNobody.stdout.trim()).toBe('EACCES');
  });

  it('through the static client, ADD, CHECK, a repeated ADD, DEL, GC and STATUS answer as the plugin in-process does', async () => {
    const a = await start();
    const client = CLIENT;
    const id = (n: string) => `static-${n}`;
    // The twin store is not the agent's: the agent sends those requests back, and the plugin
    // runs them in-process, on an identical store.
    const steps: [string, string, Record<string, unknown>][] = [
      ['ADD', id('a'), {}],
      ['ADD', id('b'), {}],
      ['ADD', id('a'), {}],
      ['CHECK', id('b'), {}],
      ['DEL', id('b'), {}],
      ['DEL', id('b'), {}],
      ['CHECK', id('b'), {}],
      ['ADD', id('c'), { ipv4_pools: ['missing'] }],
      ['GC', id('-'), {}],
      ['STATUS', id('-'), {}],
    ];
    const gcList = { 'cni.dev/valid-attachments': [{ containerID: id('a') }] };
    for (const [command, containerId, ipam] of steps) {
      const on = (path: string) => ({
        ...conf({ ...ipam, datastore_path: path }),
        ...(command === 'GC' && gcList),
      });
      const viaAgent = await runCni({ plugin, command, containerId, conf: on(store) });
      const inProcess = await runCni({ plugin, command, containerId, conf: on(twinStore) });
      const what = `${command} ${containerId}: ${viaAgent.stdout}${viaAgent.stderr}`;
      expect({ status: viaAgent.status, stdout: viaAgent.stdout }, what).toEqual({
        status: inProcess.status,
        stdout: inProcess.stdout,
      });
    }
    const { requests } = await statusWhenIdle(a);
    const count = (command: string, outcome: string) =>
      served(requests, { command, client, outcome });
    // a, b, a again (it holds an address), c (refused: no such pool): each run once.
    expect(count('ADD', 'answered')).toBe(4);
    expect(count('ADD', 'fallback')).toBe(4); // the twin's
    expect(count('DEL', 'answered') + count('CHECK', 'answered')).toBe(4);
    expect(count('GC', 'answered') + count('STATUS', 'answered')).toBe(2);
    // Both stores hold the same: what each path allocated.
    expect([...(await allocations(store)).values()]).toEqual([
      ...(await allocations(twinStore)).values(),
    ]);
  });

  it('refuses malformed requests (400, 404, 405, 413) without touching the store', async () => {
    const a = await start();
    await runCni({ plugin, command: 'ADD', containerId: 'warm', conf: conf() });
    const before = readFileSync(store);
    const raw = (text: string | Buffer): Promise<string> =>
      new Promise((resolve, reject) => {
        const s = createConnection({ path: socket });
        let got = '';
        s.on('data', (d: Buffer) => (got += d.toString('latin1')));
        s.on('close', () => resolve(got));
        s.on('error', reject);
        s.write(text);
      });
    const post = (body: Buffer | string) =>
      Buffer.concat([
        Buffer.from(`POST /v1/cni HTTP/1.0\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`),
        Buffer.from(body),
      ]);
    expect(await raw(post('CNI_COMMAND=ADD\0no end of the environment'))).toMatch(
      /^HTTP\/1\.1 400 /,
    );
    expect(await raw(post('CNI_COMMAND\0\0{}'))).toMatch(/^HTTP\/1\.1 400 /);
    expect(await raw('GET /v1/nothing HTTP/1.0\r\n\r\n')).toMatch(/^HTTP\/1\.1 404 /);
    expect(await raw('DELETE /v1/cni HTTP/1.0\r\n\r\n')).toMatch(/^HTTP\/1\.1 405 /);
    expect(await raw('POST /v1/cni HTTP/1.0\r\nContent-Length: 2000000\r\n\r\n')).toMatch(
      /^HTTP\/1\.1 413 /,
    );
    expect(await raw('not http at all\r\n\r\n')).toMatch(/^HTTP\/1\.1 400 /);
    expect(readFileSync(store).equals(before)).toBe(true);
    const { requests } = await statusWhenIdle(a);
    // The two bad bodies and the one too large; the rest never reached the CNI path.
    expect(served(requests, { command: 'unknown', client: 'unknown', outcome: 'refused' })).toBe(3);
  });

  it('with no agent, the plugin runs in-process: no socket at all, or a dead agent’s socket left behind', async () => {
    rmSync(socket, { force: true }); // an earlier test's kill -9 left it
    const none = await runCni({
      plugin,
      command: 'ADD',
      containerId: 'absent-1',
      conf: conf(),
    });
    expect(none.status, none.stdout).toBe(0);
    // A socket file nobody listens on (the agent was killed and left it): connect is refused.
    const a = await start();
    await a.stop('SIGKILL');
    expect(statSync(socket).isSocket()).toBe(true);
    const r = await runCni({ plugin, command: 'ADD', containerId: 'absent-2', conf: conf() });
    expect(r.status, r.stdout).toBe(0);
    const held = await allocations(store);
    expect(held.get('agentnet.absent-1')).toEqual([addressOf(none)]);
    expect(held.get('agentnet.absent-2')).toHaveLength(1);
    expect(held.get('agentnet.absent-1')).not.toEqual(held.get('agentnet.absent-2'));
    // The next agent takes the stale socket over.
    const b = await start();
    const del = await runCni({
      plugin,
      command: 'DEL',
      containerId: 'absent-2',
      conf: conf(),
    });
    expect(del.status, del.stdout).toBe(0);
    expect(
      served((await statusWhenIdle(b)).requests, {
        command: 'DEL',
        client: CLIENT,
        outcome: 'answered',
      }),
    ).toBe(1);
    expect((await allocations(store)).has('agentnet.absent-2')).toBe(false);
  });

  it('serialises with the host lock: an ADD waits while the lock is held, and agent and in-process ADDs interleave without sharing an address', async () => {
    const a = await start();
    const held = await holdHostLock(lockFile);
    let released = false;
    let waiting: Promise<CniRun>;
    try {
      const before = readFileSync(store);
      waiting = runCni({ plugin, command: 'ADD', containerId: 'lock-0', conf: conf() });
      await vi.waitFor(async () => expect((await a.status()).inFlight).toBe(1), {
        timeout: 20_000,
      });
      // In flight, behind the lock: nothing written yet.
      expect(readFileSync(store).equals(before)).toBe(true);
      await held.release();
      released = true;
      expect((await waiting).status).toBe(0);
    } finally {
      if (!released) await held.release();
    }
    // The same store and lock, half through the agent, half in-process (a config naming a socket
    // nobody listens on), all at once.
    const elsewhere = join(tmp.path, 'no-agent.sock');
    const runs = Array.from({ length: 16 }, (_, i) =>
      runCni({
        plugin,
        command: 'ADD',
        containerId: `lock-${i + 1}`,
        conf: i % 2 === 0 ? conf() : conf({ agent_socket: elsewhere }),
      }),
    );
    const results = await Promise.all(runs);
    for (const r of results) expect(r.status, r.stdout).toBe(0);
    const given = [await waiting, ...results].map(addressOf);
    expect(new Set(given).size).toBe(17);
    const heldNow = await allocations(store);
    for (let i = 1; i <= 16; i++) expect(heldNow.get(`agentnet.lock-${i}`)).toEqual([given[i]]);
    const { requests } = await statusWhenIdle(a);
    expect(served(requests, { command: 'ADD', client: CLIENT, outcome: 'answered' })).toBe(9);
  }, 60_000);

  it('a second agent on the same socket refuses to start (exit 1) and the first serves on; an existing socket directory keeps its mode', async () => {
    mkdirSync(dirname(socket), { recursive: true });
    chmodSync(dirname(socket), 0o755);
    const a = await start();
    expect(statSync(dirname(socket)).mode & 0o7777).toBe(0o755);
    expect(statSync(socket).mode & 0o777).toBe(0o600);
    await expect(
      startNodeAgent({
        bin: AGENT,
        nodename: NODE,
        socket,
        env: { NETLEDGER_DATASTORE_PATH: store },
      }),
    ).rejects.toThrow(/did not start \(exited\)[^]*another agent answers on/);
    const r = await runCni({
      plugin,
      command: 'ADD',
      containerId: 'second',
      conf: conf(),
    });
    expect(r.status, r.stdout).toBe(0);
    expect(
      served((await statusWhenIdle(a)).requests, {
        command: 'ADD',
        client: CLIENT,
        outcome: 'answered',
      }),
    ).toBe(1);
  });

  it('follows pool, Node and affinity changes made by others through its watch, never re-syncing its view', async () => {
    const a = await start();
    const elsewhere = join(tmp.path, 'nobody-watch.sock');
    // A pool from netledgerctl; an affinity of this node's and another node's registration from
    // the plugin in-process (its config names a socket nobody listens on); then one more pool.
    ctl(store, ['ippool', 'create', '--name', 'watched', '--cidr', '10.63.0.0/24']);
    for (const [containerId, nodename] of [
      ['watch-1', NODE],
      ['watch-2', 'watch-node-2'],
    ] as const) {
      const r = await runCni({
        plugin,
        command: 'ADD',
        containerId,
        conf: conf({ agent_socket: elsewhere, nodename, ipv4_pools: ['watched'] }),
      });
      expect(r.status, r.stdout).toBe(0);
    }
    ctl(store, ['ippool', 'create', '--name', 'witness', '--cidr', '10.64.0.0/24']);
    // The agent's view has everything once it knows the last pool: an ADD naming it succeeds.
    let probes = 0;
    await vi.waitFor(
      async () => {
        const r = await runCni({
          plugin,
          command: 'ADD',
          containerId: `witness-${probes++}`,
          conf: conf({ ipv4_pools: ['witness'] }),
        });
        expect(r.status, r.stdout).toBe(0);
      },
      { timeout: 20_000, interval: 50 },
    );
    const viaAgent = await runCni({
      plugin,
      command: 'ADD',
      containerId: 'watch-3',
      conf: conf({ ipv4_pools: ['watched'] }),
    });
    expect(viaAgent.status, viaAgent.stdout).toBe(0);
    expect(addressOf(viaAgent)).toMatch(/^10\.63\.0\./);
    const status = await statusWhenIdle(a);
    const viaAgentCount = (outcome: string) =>
      served(status.requests, { command: 'ADD', client: CLIENT, outcome });
    // The probes and watch-3 were the agent's.
    expect(viaAgentCount('answered')).toBe(probes + 1);
    expect(status.storeResyncs).toBe(0);
    expect(a.log()).not.toContain('out of sync');
  }, 60_000);

  it('sends back a request for another node; the plugin then runs it itself', async () => {
    const a = await start();
    const r = await runCni({
      plugin,
      command: 'ADD',
      containerId: 'other',
      conf: conf({ nodename: 'another-node' }),
    });
    expect(r.status).toBe(0);
    const { requests } = await statusWhenIdle(a);
    expect(served(requests, { command: 'ADD', client: CLIENT, outcome: 'fallback' })).toBe(1);
    expect(a.log()).toContain("(the config's node is another-node, the agent's agent-node)");
    const ds = await createFileDatastore({ path: store });
    try {
      const attrs = await createIpamClient({ datastore: ds }).getAssignmentAttributes(addressOf(r));
      expect(attrs.activeOwnerAttrs).toMatchObject({ node: 'another-node' });
    } finally {
      await ds.close();
    }
  });

  it('SIGTERM: the ADD in flight is answered, a new one falls back, the agent exits 0', async () => {
    const a = await start();
    // Hold the host lock: the agent's ADD waits for it, in flight.
    const held = await holdHostLock(lockFile);
    let released = false;
    try {
      const inFlight = runCni({
        plugin,
        command: 'ADD',
        containerId: 'term-1',
        conf: conf(),
      });
      await vi.waitFor(async () => expect((await a.status()).inFlight).toBe(1), {
        timeout: 20_000,
      });
      const exited = a.stop('SIGTERM');
      await vi.waitFor(() => expect(existsSync(socket)).toBe(false), { timeout: 20_000 });
      const after = runCni({
        plugin,
        command: 'ADD',
        containerId: 'term-2',
        conf: conf(),
      });
      await held.release();
      released = true;
      const [first, second] = [await inFlight, await after];
      expect(first.status, first.stdout).toBe(0);
      expect(second.status, second.stdout).toBe(0);
      expect(addressOf(first)).not.toBe(addressOf(second));
      expect(await exited).toBe(0);
      expect(a.log()).toMatch(/SIGTERM: no new requests; finishing 1 in flight/);
      expect(a.log()).toMatch(/ADD from netledger-ipam: answered \(exit 0\)/);
    } finally {
      if (!released) await held.release();
    }
  }, 60_000);

  it('kill -9 of the agent with an ADD in flight (waiting for the host lock): the plugin runs it itself, one address, store consistent', async () => {
    const a = await start();
    const held = await holdHostLock(lockFile);
    let released = false;
    try {
      const run = runCni({ plugin, command: 'ADD', containerId: 'k9', conf: conf() });
      await vi.waitFor(async () => expect((await a.status()).inFlight).toBe(1), {
        timeout: 20_000,
      });
      await a.stop('SIGKILL');
      await held.release();
      released = true;
      const r = await run;
      expect(r.status, r.stdout).toBe(0);
      expect((await allocations(store)).get('agentnet.k9')).toEqual([addressOf(r)]);
      expect(ctl(store, ['ipam', 'check'])).toMatch(AUDIT_CLEAN);
      // Its retry, in-process too (the socket is stale), returns the same address.
      const again = await runCni({
        plugin,
        command: 'ADD',
        containerId: 'k9',
        conf: conf(),
      });
      expect(addressOf(again)).toBe(addressOf(r));
    } finally {
      if (!released) await held.release();
    }
  }, 60_000);

  it('kill -9 during a burst of ADDs: every container ends with one address, none shared; repeated ADDs and DELs agree', async () => {
    const a = await start();
    const ids = Array.from({ length: 30 }, (_, i) => `burst-${i}`);
    const runs = ids.map((containerId) =>
      runCni({ plugin, command: 'ADD', containerId, conf: conf() }),
    );
    // Kill it mid-burst: once some ADDs have landed and others have not.
    await vi.waitFor(
      async () => {
        const n = [...(await allocations(store)).keys()].filter((h) => h.includes('burst-')).length;
        expect(n).toBeGreaterThanOrEqual(5);
      },
      { timeout: 60_000, interval: 20 },
    );
    await a.stop('SIGKILL');
    const results: CniRun[] = await Promise.all(runs);
    for (const r of results) expect(r.status, r.stdout).toBe(0);
    const given = results.map(addressOf);
    expect(new Set(given).size).toBe(ids.length);
    const held = await allocations(store);
    for (const [i, id] of ids.entries()) expect(held.get(`agentnet.${id}`)).toEqual([given[i]]);
    // The store's own audit: every handle has its allocations, every allocation its handle, every
    // block is consistent (the file store has no workloads, so allocations count as not in use).
    expect(ctl(store, ['ipam', 'check'])).toMatch(AUDIT_CLEAN);
    // A restarted agent serves the runtime's retries with what each container holds.
    const b = await start();
    const again = await Promise.all(
      ids.map((containerId) => runCni({ plugin, command: 'ADD', containerId, conf: conf() })),
    );
    expect(again.map(addressOf)).toEqual(given);
    const dels = await Promise.all(
      ids.map((containerId) => runCni({ plugin, command: 'DEL', containerId, conf: conf() })),
    );
    for (const r of dels) expect(r.status, r.stdout).toBe(0);
    expect([...(await allocations(store)).keys()].filter((h) => h.includes('burst-'))).toEqual([]);
    expect(ctl(store, ['ipam', 'check'])).toMatch(AUDIT_CLEAN);
    const { requests } = await statusWhenIdle(b);
    expect(served(requests, { command: 'DEL', client: CLIENT, outcome: 'answered' })).toBe(30);
  }, 180_000);
});
