// End to end in throwaway namespaces: Debian's bridge plugin, with its gateway on the bridge
// (isGateway), and "ipam": netledger-ipam in gateway mode, and the same harness with Debian's
// host-local on an equal /24, side by side. Neither may hand a container the bridge's gateway or
// the subnet's network or broadcast address (which calico mode would: issue 14). netledger-ipam
// runs four ways: on its own (bin/), with no `mode` (gateway mode is the default under bridge),
// installed with netledger-node serving it, installed with netledger-node stopped (killed: its
// socket left behind, the plugin runs every command itself), both with `"mode": "gateway"`, and,
// for a few containers, installed with netledger-node hung (SIGSTOP): each ADD fails "try again
// later" (11) after agent_answer_timeout, the resumed agent drops the requests whose clients went
// away (nothing allocated), and the runtime's retry goes through it.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createFileDatastore } from '@netledger/datastore-file';
import { createIpamClient, isIpamError } from '@netledger/ipam-core';
import type { IpamClient } from '@netledger/ipam-core';
import { createTempDir } from '@netledger/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { abandoned, answered, setUpAgent, waitForStatus } from './agent-harness.js';
import type { AgentMode, AgentSetup } from './agent-harness.js';
import { BIN_DIR } from './exec-harness.js';
import { createNetnsHarness, pooled, requireNetnsPrerequisites } from './netns-harness.js';
import type { PluginRun } from './netns-harness.js';

const CONTAINERS = 50;
const PARALLEL = 5;
const COOLDOWN_S = 20;
/** The hung-agent variant: few containers, for each of their ADDs waits the whole timeout. */
const PAUSED_CONTAINERS = 3;
const ANSWER_TIMEOUT_S = 1;

interface Variant {
  readonly name: string;
  readonly plugin: 'netledger-ipam' | 'host-local';
  /** netledger-ipam installed beside netledger-node, running or stopped. */
  readonly agent?: AgentMode;
  /** The namespaces' tag. */
  readonly tag: string;
  readonly subnet: string;
  /** The gateway bridge puts on itself, and the addresses no container may get. */
  readonly gateway: string;
  readonly reserved: readonly string[];
  ipam(tmp: string): Record<string, unknown>;
}

const netledger = (
  name: string,
  tag: string,
  { agent, mode }: { agent?: AgentMode; mode?: 'gateway' } = {},
): Variant => ({
  name,
  plugin: 'netledger-ipam',
  ...(agent && { agent }),
  tag,
  subnet: '10.123.0.',
  gateway: '10.123.0.1',
  reserved: ['10.123.0.0', '10.123.0.1', '10.123.0.255'],
  ipam: (tmp) => ({
    type: 'netledger-ipam',
    ...(mode && { mode }),
    ipv4_pools: ['e2e'],
    nodename: 'e2e-node',
    datastore_path: join(tmp, 'store', 'datastore.json'),
    ipam_lock_file: join(tmp, 'lock', 'ipam.lock'),
    ...(agent && { agent_socket: join(tmp, 'run', 'node.sock') }),
    log_level: 'error',
  }),
});

const variants: Variant[] = [
  netledger('netledger-ipam without a mode', 'nl'),
  netledger('netledger-ipam through netledger-node', 'na', { agent: 'running', mode: 'gateway' }),
  netledger('netledger-ipam with netledger-node stopped', 'ns', {
    agent: 'stopped',
    mode: 'gateway',
  }),
  {
    name: 'host-local',
    plugin: 'host-local',
    tag: 'hl',
    subnet: '10.124.0.',
    gateway: '10.124.0.1',
    reserved: ['10.124.0.0', '10.124.0.1', '10.124.0.255'],
    ipam: (tmp) => ({
      type: 'host-local',
      subnet: '10.124.0.0/24',
      dataDir: join(tmp, 'host-local'),
    }),
  },
];

const timings: Record<string, { add: number[]; del: number[] }> = {};
const p50 = (xs: number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

afterAll(() => {
  const rows = Object.entries(timings).map(
    ([name, t]) =>
      `${name.padEnd(43)} bridge ADD p50 ${p50(t.add).toFixed(0)} ms` +
      (t.del.length > 0 ? `, DEL p50 ${p50(t.del).toFixed(0)} ms` : ''),
  );
  if (rows.length > 0)
    console.log(
      `bridge + IPAM, ${CONTAINERS} containers each (${PAUSED_CONTAINERS} with netledger-node paused):\n${rows.join('\n')}`,
    );
});

/** The store's handles of `ids` on network `network`, and what each holds ([] when none). */
async function heldBy(
  storePath: string,
  network: string,
  ids: readonly string[],
): Promise<Record<string, string[]>> {
  const ds = await createFileDatastore({ path: storePath });
  try {
    const c = createIpamClient({ datastore: ds });
    const held: Record<string, string[]> = {};
    for (const id of ids) {
      held[id] = await c.ipsByHandle(`${network}.${id}`).catch((e: unknown) => {
        if (isIpamError(e, 'DoesNotExist')) return [];
        throw e;
      });
    }
    return held;
  } finally {
    await ds.close();
  }
}

describe.each(variants)('bridge with $name', (variant) => {
  let tmp: { path: string; remove: () => Promise<void> };
  let h: ReturnType<typeof createNetnsHarness>;
  let conf: Record<string, unknown>;
  let agent: AgentSetup | undefined;
  let deleted = 0;
  const containers: {
    id: string;
    netns: string;
    result?: Record<string, unknown>;
    address?: string;
  }[] = [];

  const withClient = async <T>(fn: (c: IpamClient) => Promise<T>): Promise<T> => {
    const ds = await createFileDatastore({ path: join(tmp.path, 'store', 'datastore.json') });
    try {
      return await fn(createIpamClient({ datastore: ds }));
    } finally {
      await ds.close();
    }
  };

  const expectOk = (r: PluginRun, what: string): void => {
    if (r.status !== 0) throw new Error(`${what} failed (${r.status}): ${r.stdout}${r.stderr}`);
  };

  beforeAll(async () => {
    requireNetnsPrerequisites();
    tmp = await createTempDir('netledger-cni-e2e-');
    const binDir = join(tmp.path, 'cni-bin');
    h = createNetnsHarness(variant.tag, variant.agent ? { binDir } : {});
    conf = {
      cniVersion: '1.0.0',
      name: `e2e-${variant.plugin}`,
      type: 'bridge',
      bridge: `nlbr${h.suffix}`,
      isGateway: true,
      ipam: variant.ipam(tmp.path),
    };
    if (variant.plugin === 'netledger-ipam') {
      await withClient(async (c) => {
        await c.pools.create({ metadata: { name: 'e2e' }, spec: { cidr: '10.123.0.0/24' } });
        await c.setIpamConfig({ ...(await c.getIpamConfig()), ipCooldownSeconds: COOLDOWN_S });
      });
    }
    if (variant.agent) {
      agent = await setUpAgent({
        mode: variant.agent,
        binDir,
        socket: join(tmp.path, 'run', 'node.sock'),
        nodename: 'e2e-node',
        datastorePath: join(tmp.path, 'store', 'datastore.json'),
      });
    }
    for (let i = 0; i < CONTAINERS; i++)
      containers.push({ id: `e2e${i}${h.suffix}`, netns: h.container(i) });
    timings[variant.name] = { add: [], del: [] };
  }, 120_000);

  afterAll(async () => {
    await agent?.stop();
    h?.cleanup();
    await tmp?.remove();
  });

  it(`ADD of ${CONTAINERS} containers: each interface holds the address the result names`, async () => {
    const addOne = async (c: (typeof containers)[number]): Promise<void> => {
      const r = await h.runPlugin('bridge', 'ADD', { containerId: c.id, netns: c.netns, conf });
      expectOk(r, `ADD ${c.id}`);
      timings[variant.name]!.add.push(r.ms);
      c.result = r.json;
      const ips = r.json!['ips'] as { address: string }[];
      expect(ips).toHaveLength(1);
      c.address = ips[0]!.address;
    };
    await addOne(containers[0]!); // creates the bridge; the rest run in parallel
    // A Linux bridge takes the lowest MAC of its ports unless one is set, and bridge's CHECK
    // compares the MAC in prevResult: pin it, as a runtime's long-lived bridge would be.
    const bridge = (containers[0]!.result!['interfaces'] as { name: string; mac: string }[])[0]!;
    h.setMac(bridge.name, bridge.mac);
    await pooled(containers.slice(1), PARALLEL, addOne);
    for (const c of containers) {
      expect(c.address!.startsWith(variant.subnet)).toBe(true);
      expect(h.addresses(c.netns)).toEqual([c.address]);
    }
    expect(new Set(containers.map((c) => c.address)).size).toBe(CONTAINERS);
    for (const c of containers) {
      // One L2 segment: the subnet's prefix and its gateway, not the block's /26.
      expect(c.address).toMatch(/\/24$/);
      expect((c.result!['ips'] as { gateway?: string }[])[0]!.gateway).toBe(variant.gateway);
    }
  }, 300_000);

  it('no container holds the gateway, network or broadcast address; the bridge holds the gateway', () => {
    const bridge = conf['bridge'] as string;
    expect(h.hostAddresses(bridge)).toEqual([`${variant.gateway}/24`]);
    for (const c of containers) {
      expect(variant.reserved).not.toContain(c.address!.split('/')[0]);
      // The gateway is the bridge's, reached over eth0: never a local address of the container.
      expect(h.routeGet(c.netns, variant.gateway)).toMatch(
        new RegExp(`^${variant.gateway.replace(/\./g, '\\.')} dev eth0 src `),
      );
    }
  });

  it('containers reach the gateway and each other', () => {
    for (const [i, c] of containers.slice(0, 5).entries()) {
      expect(h.ping(c.netns, variant.gateway)).toBe(true);
      const other = containers[containers.length - 1 - i]!;
      expect(h.ping(c.netns, other.address!.split('/')[0]!)).toBe(true);
    }
  }, 120_000);

  it('CHECK passes while attached', async () => {
    const runs = await pooled(containers, PARALLEL, (c) =>
      h.runPlugin('bridge', 'CHECK', {
        containerId: c.id,
        netns: c.netns,
        conf: { ...conf, prevResult: c.result },
      }),
    );
    for (const r of runs) expectOk(r, 'CHECK');
  }, 300_000);

  it('DEL removes the interfaces and frees the addresses; CHECK then fails', async () => {
    const dels = await pooled(containers, PARALLEL, (c) =>
      h.runPlugin('bridge', 'DEL', { containerId: c.id, netns: c.netns, conf }),
    );
    deleted = Date.now();
    for (const r of dels) {
      expectOk(r, 'DEL');
      timings[variant.name]!.del.push(r.ms);
    }
    for (const c of containers) expect(h.hasLink(c.netns)).toBe(false);
    const checks = await pooled(containers, PARALLEL, (c) =>
      h.runPlugin('bridge', 'CHECK', {
        containerId: c.id,
        netns: c.netns,
        conf: { ...conf, prevResult: c.result },
      }),
    );
    for (const r of checks) expect(r.status).not.toBe(0);
    if (variant.plugin === 'netledger-ipam') {
      expect(checks[0]!.json).toMatchObject({
        msg: expect.stringContaining('no addresses are allocated'),
      });
    } else {
      expect(checks[0]!.json).toMatchObject({
        msg: expect.stringContaining('Failed to find address'),
      });
      const leases = readdirSync(join(tmp.path, 'host-local', conf['name'] as string));
      expect(leases.filter((f) => f.startsWith('10.124.'))).toEqual([]);
    }
    // A second DEL of the same container succeeds (the runtime may retry).
    expectOk(
      await h.runPlugin('bridge', 'DEL', {
        containerId: containers[0]!.id,
        netns: containers[0]!.netns,
        conf,
      }),
      'second DEL',
    );
  }, 300_000);

  it('the addresses return to the pool (netledger-ipam: after the cooldown)', async () => {
    if (variant.plugin === 'host-local') {
      // host-local has no cooldown: a released lease file is gone and the address is free.
      const leases = readdirSync(join(tmp.path, 'host-local', conf['name'] as string));
      expect(leases.filter((f) => f.startsWith('10.124.'))).toEqual([]);
      return;
    }
    const ips = containers.map((c) => c.address!.split('/')[0]!);
    const probe = (ip: string, c: IpamClient) =>
      c.assignIp({ ip, hostname: 'e2e-node', handleId: 'e2e-probe', intendedUse: 'Workload' });
    await withClient(async (c) => {
      for (const ip of ips) {
        const handles = await c
          .ipsByHandle(`e2e-netledger-ipam.${containers[ips.indexOf(ip)]!.id}`)
          .catch((e: unknown) => {
            if (isIpamError(e, 'DoesNotExist')) return [];
            throw e;
          });
        expect(handles).toEqual([]);
      }
      // Still cooling down: the last container deleted.
      await expect(probe(ips.at(-1)!, c)).rejects.toMatchObject({ code: 'AlreadyExists' });
    });
    await new Promise((r) =>
      setTimeout(r, Math.max(0, COOLDOWN_S * 1000 + 1100 - (Date.now() - deleted))),
    );
    await withClient(async (c) => {
      for (const ip of ips) await probe(ip, c);
      expect((await c.ipsByHandle('e2e-probe')).length).toBe(CONTAINERS);
      await c.releaseByHandle('e2e-probe');
    });
  }, 120_000);

  // Only the variants with an agent have one to ask (registered for them alone, not skipped).
  if (variant.agent !== undefined) {
    it(
      variant.agent === 'running'
        ? 'netledger-node answered every ADD, CHECK and DEL'
        : "netledger-node's socket stayed behind, unanswered: the plugin fell back every time",
      async () => {
        const status = await agent!.status();
        if (variant.agent === 'stopped') {
          expect(status).toBeUndefined();
          expect(statSync(join(tmp.path, 'run', 'node.sock')).isSocket()).toBe(true);
          return;
        }
        // ADDs, CHECKs (passing, then failing), DELs and the repeated DEL.
        expect({
          ADD: answered(status!, 'ADD'),
          CHECK: answered(status!, 'CHECK'),
          DEL: answered(status!, 'DEL'),
        }).toEqual({ ADD: CONTAINERS, CHECK: 2 * CONTAINERS, DEL: CONTAINERS + 1 });
      },
    );
  }
});

describe('bridge with netledger-ipam with netledger-node paused (SIGSTOP: bounded wait)', () => {
  const name = 'netledger-ipam with netledger-node paused';
  let tmp: { path: string; remove: () => Promise<void> };
  let h: ReturnType<typeof createNetnsHarness>;
  let conf: Record<string, unknown>;
  let agent: AgentSetup | undefined;
  let socket: string;
  let storePath: string;
  const containers: { id: string; netns: string; result?: Record<string, unknown> }[] = [];
  const ids = (): string[] => containers.map((c) => c.id);
  const ipamCheck = (): string =>
    execFileSync(join(BIN_DIR, 'netledgerctl'), ['ipam', 'check'], {
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', NETLEDGER_DATASTORE_PATH: storePath },
      encoding: 'utf8',
    });
  const run = (command: string, c: (typeof containers)[number]): Promise<PluginRun> =>
    h.runPlugin('bridge', command, { containerId: c.id, netns: c.netns, conf });

  beforeAll(async () => {
    requireNetnsPrerequisites();
    tmp = await createTempDir('netledger-cni-e2e-');
    const binDir = join(tmp.path, 'cni-bin');
    h = createNetnsHarness('np', { binDir });
    socket = join(tmp.path, 'run', 'node.sock');
    storePath = join(tmp.path, 'store', 'datastore.json');
    conf = {
      cniVersion: '1.0.0',
      name: 'e2e-paused',
      type: 'bridge',
      bridge: `nlbr${h.suffix}`,
      isGateway: true,
      ipam: {
        ...netledger(name, 'np', { agent: 'paused', mode: 'gateway' }).ipam(tmp.path),
        agent_answer_timeout: ANSWER_TIMEOUT_S,
      },
    };
    const ds = await createFileDatastore({ path: storePath });
    await createIpamClient({ datastore: ds }).pools.create({
      metadata: { name: 'e2e' },
      spec: { cidr: '10.123.0.0/24' },
    });
    await ds.close();
    agent = await setUpAgent({
      mode: 'paused',
      binDir,
      socket,
      nodename: 'e2e-node',
      datastorePath: storePath,
    });
    for (let i = 0; i < PAUSED_CONTAINERS; i++)
      containers.push({ id: `e2ep${i}${h.suffix}`, netns: h.container(i) });
    timings[`${name}: failed ADD`] = { add: [], del: [] };
    timings[`${name}: retried`] = { add: [], del: [] };
  }, 120_000);

  afterAll(async () => {
    await agent?.stop(); // SIGCONT, then SIGKILL
    h?.cleanup();
    await tmp?.remove();
  });

  it(`each ADD fails "try again later" (11) naming the socket after agent_answer_timeout; resumed, the agent drops them: nothing allocated`, async () => {
    const runs: PluginRun[] = [];
    try {
      runs.push(await run('ADD', containers[0]!)); // creates the bridge; the rest run in parallel
      // Pinned as in the variants above (bridge refuses the all-zero MAC a bridge without ports
      // would have by the time the retried ADDs come).
      h.setMac(conf['bridge'] as string, h.mac(conf['bridge'] as string));
      runs.push(...(await pooled(containers.slice(1), PARALLEL, (c) => run('ADD', c))));
    } finally {
      agent!.resume(); // every client has given up by now
    }
    for (const [i, r] of runs.entries()) {
      timings[`${name}: failed ADD`]!.add.push(r.ms);
      expect(r.status, `ADD ${containers[i]!.id}: ${r.stdout}${r.stderr}`).toBe(1);
      // bridge relays its IPAM plugin's error as it is.
      expect(r.json).toEqual({
        code: 11,
        msg: `the node agent at ${socket} did not answer within ${ANSWER_TIMEOUT_S} s: try again later`,
      });
      // It waited for the answer for the whole timeout.
      expect(r.ms).toBeGreaterThanOrEqual(ANSWER_TIMEOUT_S * 1000);
      // bridge leaves the veth it made before asking its IPAM plugin, with no address.
      expect(h.hasLink(containers[i]!.netns)).toBe(true);
      expect(h.addresses(containers[i]!.netns)).toEqual([]);
    }
    // Each ADD was sent whole before its client gave up: the resumed agent reads it, finds the
    // client gone, and drops it (or would roll it back, had it run it).
    const status = await waitForStatus(agent!, (s) =>
      expect(abandoned(s, 'ADD')).toBe(PAUSED_CONTAINERS),
    );
    expect(answered(status, 'ADD')).toBe(0);
    expect(status.inFlight).toBe(0);
    expect(await heldBy(storePath, 'e2e-paused', ids())).toEqual(
      Object.fromEntries(ids().map((id) => [id, []])),
    );
    expect(ipamCheck()).toContain('IPAM blocks record 0 allocations.');
    expect(agent!.agent!.log()).toMatch(/ADD from netledger-ipam: (abandoned|not-run) \(/);
    expect(agent!.agent!.log()).not.toMatch(/\n\s+at /);
  }, 120_000);

  it("the runtime's clean-up DEL and retried ADD go through the resumed agent: distinct addresses on the interfaces", async () => {
    const retryOne = async (c: (typeof containers)[number]): Promise<void> => {
      // A runtime deletes a failed ADD's attachment (bridge left the veth) before it retries.
      const del = await run('DEL', c);
      expect(del.status, `DEL ${c.id}: ${del.stdout}${del.stderr}`).toBe(0);
      const r = await run('ADD', c);
      expect(r.status, `ADD ${c.id}: ${r.stdout}${r.stderr}`).toBe(0);
      timings[`${name}: retried`]!.add.push(r.ms);
      c.result = r.json;
    };
    await pooled(containers, PARALLEL, retryOne);
    const addresses = containers.map((c) =>
      (c.result!['ips'] as { address: string }[]).map((ip) => ip.address),
    );
    for (const [i, c] of containers.entries()) {
      expect(addresses[i]).toHaveLength(1);
      expect(addresses[i]![0]).toMatch(/^10\.123\.0\.\d+\/24$/);
      expect(['10.123.0.0/24', '10.123.0.1/24', '10.123.0.255/24']).not.toContain(addresses[i]![0]);
      expect(h.addresses(c.netns)).toEqual(addresses[i]);
    }
    expect(new Set(addresses.flat()).size).toBe(PAUSED_CONTAINERS);
    expect(await heldBy(storePath, 'e2e-paused', ids())).toEqual(
      Object.fromEntries(ids().map((id, i) => [id, [addresses[i]![0]!.replace('/24', '')]])),
    );
    expect(h.ping(containers[0]!.netns, '10.123.0.1')).toBe(true);
  }, 120_000);

  it('DEL frees every address: ipam check finds no allocation; the agent answered every retried command', async () => {
    const dels = await pooled(containers, PARALLEL, (c) => run('DEL', c));
    for (const r of dels) {
      expect(r.status, r.stdout + r.stderr).toBe(0);
      timings[`${name}: retried`]!.del.push(r.ms);
    }
    for (const c of containers) expect(h.hasLink(c.netns)).toBe(false);
    expect(await heldBy(storePath, 'e2e-paused', ids())).toEqual(
      Object.fromEntries(ids().map((id) => [id, []])),
    );
    const check = ipamCheck();
    expect(check).toContain('IPAM blocks record 0 allocations.');
    expect(check).toContain('Check complete; found 0 problems.');
    const status = (await agent!.status())!;
    expect({
      ADD: answered(status, 'ADD'),
      abandonedADD: abandoned(status, 'ADD'),
      DEL: answered(status, 'DEL'),
    }).toEqual({
      ADD: PAUSED_CONTAINERS,
      abandonedADD: PAUSED_CONTAINERS,
      DEL: 2 * PAUSED_CONTAINERS,
    });
  }, 120_000);
});
