// End to end under a real container runtime (issue 14): Debian's podman 4.3 on its CNI backend
// with runc, containers of a static busybox root file system (--rootfs), on a bridge network whose
// IPAM is netledger-ipam in gateway mode, the plugin installed with `netledger-ipam install` into
// a temporary CNI bin dir beside Debian's /usr/lib/cni plugins, the conflist the install writes.
// Ten containers start at once; each must get its own address, neither the gateway nor the
// network or broadcast address, and reach the gateway and another container; once they have
// exited, netledgerctl ipam check finds nothing in use. Twice: with netledger-node, the node agent,
// serving the plugin, and with it stopped (killed, its socket left behind: the plugin falls back).
// Then with it hung (SIGSTOP), for three containers: each `podman run` fails with the plugin's
// "try again later" (code 11) after agent_answer_timeout and leaves its container created, not
// running; the resumed agent drops the requests whose clients went away, so nothing is allocated;
// and starting the same containers again (the runtime's retry) goes through the agent.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createFileDatastore } from '@netledger/datastore-file';
import { createIpamClient } from '@netledger/ipam-core';
import { createNetnsPool, createTempDir } from '@netledger/testkit';
import type { NetnsPool } from '@netledger/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { abandoned, answered, setUpAgent, waitForStatus } from './agent-harness.js';
import type { AgentMode, AgentSetup } from './agent-harness.js';
import { BIN_DIR, requirePlugin } from './exec-harness.js';
import {
  createPodman,
  currentUlimits,
  addPinnedBridge,
  makeBusyboxRootfs,
  requirePodmanPrerequisites,
} from './podman-harness.js';
import type { PodmanRun } from './podman-harness.js';

const CONTAINERS = 10;
const POOL = '10.126.0.0/24';
const GATEWAY = '10.126.0.1';
const NEVER_GIVEN = ['10.126.0.0', GATEWAY, '10.126.0.255'];
/** The hung-agent variant: few containers, for each of their ADDs waits the whole timeout. */
const PAUSED_CONTAINERS = 3;
const ANSWER_TIMEOUT_S = 1;

// Runs in each container (busybox sh): publishes its address, waits for all, then pings the
// gateway and the next container, publishes what it saw, and stays up until every container has
// published (so each ping has a live peer). Bounded waits: a container never hangs the test.
const SCRIPT = `
ip=$(ip -4 addr show eth0 | sed -n 's/.*inet \\([0-9.]*\\/[0-9]*\\).*/\\1/p')
echo "$ip" > /shared/.a$ID && mv /shared/.a$ID /shared/addr$ID
n=0; while [ $(ls /shared | grep -c '^addr') -lt $N ]; do n=$((n+1)); [ $n -gt 2400 ] && exit 3; usleep 50000; done
gw=$(ip route | sed -n 's/^default via \\([0-9.]*\\).*/\\1/p')
peer=$(cut -d/ -f1 /shared/addr$(( (ID + 1) % N )))
route=$(ip route get $gw | head -1)
ping -c 1 -W 5 $gw > /dev/null 2>&1 && pg=ok || pg=fail
ping -c 1 -W 5 $peer > /dev/null 2>&1 && pp=ok || pp=fail
echo "$ip|$gw|$route|$pg|$peer|$pp" > /shared/.r$ID && mv /shared/.r$ID /shared/result$ID
n=0; while [ $(ls /shared | grep -c '^result') -lt $N ]; do n=$((n+1)); [ $n -gt 2400 ] && exit 4; usleep 50000; done
`;

/** Podman's container namespaces (/run/netns/cni-*). */
const cniNamespaces = (): string[] =>
  existsSync('/run/netns') ? readdirSync('/run/netns').filter((n) => n.startsWith('cni-')) : [];

/** One throwaway podman, its network and netledger-node, set up before a describe's tests. */
interface PodmanNetwork {
  tmp: { path: string; remove: () => Promise<void> };
  hostNetns: string;
  podman: ReturnType<typeof createPodman>;
  network: string;
  bridge: string;
  dsPath: string;
  socket: string;
  agent: AgentSetup | undefined;
  netledgerctl(args: string[]): string;
  /** `podman run` of container `id` of `n` running SCRIPT, sharing `shared`; extra options first. */
  runScript(o: { id: number; n: number; shared: string; options?: string[] }): Promise<PodmanRun>;
}

/**
 * Registers the beforeAll that sets up a podman, the network the install step writes and
 * netledger-node in `mode` (with `ipam`'s keys added to the network's IPAM config), and the
 * afterAll that removes every container, the agent, the namespaces and the temporary directory.
 */
function usePodmanNetwork(mode: AgentMode, ipam: Record<string, unknown> = {}): PodmanNetwork {
  const ctx = { agent: undefined } as PodmanNetwork;
  let netns: NetnsPool | undefined;
  beforeAll(async () => {
    requirePlugin();
    requirePodmanPrerequisites();
    ctx.tmp = await createTempDir('netledger-podman-');
    netns = createNetnsPool();
    const host = (ctx.hostNetns = netns.create('pm-h'));
    const suffix = host.slice(-6);
    ctx.network = `nlpod${suffix}`;
    ctx.bridge = `nlpb${suffix}`;
    ctx.dsPath = join(ctx.tmp.path, 'store', 'datastore.json');
    ctx.socket = join(ctx.tmp.path, 'run', 'node.sock');
    const cniBinDir = join(ctx.tmp.path, 'cni-bin');
    const networkDir = join(ctx.tmp.path, 'net');
    // The plugin and the network config, laid down by the install step, beside the agent.
    const ds = await createFileDatastore({ path: ctx.dsPath });
    await createIpamClient({ datastore: ds }).pools.create({
      metadata: { name: 'podman' },
      spec: { cidr: POOL },
    });
    await ds.close();
    ctx.agent = await setUpAgent({
      mode,
      binDir: cniBinDir,
      socket: ctx.socket,
      nodename: hostname(),
      datastorePath: ctx.dsPath,
      installArgs: [
        '--conf-dir',
        networkDir,
        '--network',
        ctx.network,
        '--bridge',
        ctx.bridge,
        '--pool',
        POOL,
        '--datastore-path',
        ctx.dsPath,
        '--lock-file',
        join(ctx.tmp.path, 'ipam.lock'),
      ],
    });
    if (Object.keys(ipam).length > 0) {
      const conflist = join(networkDir, `${ctx.network}.conflist`);
      const conf = JSON.parse(readFileSync(conflist, 'utf8')) as {
        plugins: { ipam: Record<string, unknown> }[];
      };
      Object.assign(conf.plugins[0]!.ipam, ipam);
      writeFileSync(conflist, JSON.stringify(conf, null, 2));
    }
    makeBusyboxRootfs(join(ctx.tmp.path, 'rootfs'));
    writeFileSync(join(ctx.tmp.path, 'rootfs', 'run.sh'), SCRIPT);
    ctx.podman = createPodman({
      dir: join(ctx.tmp.path, 'podman'),
      hostNetns: host,
      cniBinDir,
      networkDir,
    });
  }, 120_000);

  afterAll(async () => {
    ctx.agent?.resume(); // so that podman's DELs below are answered
    try {
      await ctx.podman?.removeAll();
    } finally {
      await ctx.agent?.stop(); // resumed first when paused
      netns?.cleanup(); // the host namespace, and with it the bridge, veths and iptables rules
      await ctx.tmp?.remove();
    }
  }, 120_000);

  ctx.netledgerctl = (args) =>
    execFileSync(join(BIN_DIR, 'netledgerctl'), args, {
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', NETLEDGER_DATASTORE_PATH: ctx.dsPath },
      encoding: 'utf8',
    });
  ctx.runScript = ({ id, n, shared, options = [] }) => {
    const limits = currentUlimits();
    return ctx.podman.run([
      'run',
      ...options,
      '--network',
      ctx.network,
      // Podman would raise these past what a process without CAP_SYS_RESOURCE may set.
      '--ulimit',
      `nofile=${limits.nofile}`,
      '--ulimit',
      `nproc=${limits.nproc}`,
      '-e',
      `ID=${id}`,
      '-e',
      `N=${n}`,
      '-v',
      `${shared}:/shared`,
      '--rootfs',
      join(ctx.tmp.path, 'rootfs'),
      '/bin/sh',
      '/run.sh',
    ]);
  };
  return ctx;
}

/** What each container of `n` saw (SCRIPT's result file in `shared`). */
function readResults(shared: string, n: number) {
  return Array.from({ length: n }, (_, i) => {
    const [address, gateway, route, pingGateway, peer, pingPeer] = readFileSync(
      join(shared, `result${i}`),
      'utf8',
    )
      .trim()
      .split('|');
    return { address: address!, gateway, route: route!, pingGateway, peer, pingPeer };
  });
}

/** Asserts what the containers saw: distinct addresses, never reserved, gateway and peer reached. */
function expectConnected(seen: ReturnType<typeof readResults>): void {
  const addresses = seen.map((s) => s.address);
  expect(new Set(addresses).size).toBe(seen.length);
  for (const s of seen) {
    expect(s.address).toMatch(/^10\.126\.0\.\d+\/24$/);
    expect(NEVER_GIVEN).not.toContain(s.address.split('/')[0]);
    expect(s).toMatchObject({ gateway: GATEWAY, pingGateway: 'ok', pingPeer: 'ok' });
    // The gateway is the bridge's, reached over eth0, never a local address of the container.
    expect(s.route).toMatch(new RegExp(`^${GATEWAY.replace(/\./g, '\\.')} dev eth0 `));
    expect(s.route).not.toContain('local');
  }
}

/**
 * Asserts that netledgerctl finds no allocation, and the three reserved addresses (the gateway
 * mode's reservation, made by the first ADD that succeeded) or none (before any did).
 */
function expectNothingInUse(ctx: PodmanNetwork, reserved: 0 | 3 = 3): void {
  const check = ctx.netledgerctl(['ipam', 'check']);
  expect(check).toContain('IPAM blocks record 0 allocations.');
  expect(check).toContain('Check complete; found 0 problems.');
  const pool = /^\| IP Pool\s+\|(.*)\|$/m.exec(ctx.netledgerctl(['ipam', 'show']))?.[1];
  expect(pool?.split('|').map((cell) => cell.trim())).toEqual(
    reserved === 3
      ? ['10.126.0.0/24', '256', '0 (0%)', '3 (1%)', '253 (99%)']
      : ['10.126.0.0/24', '256', '0 (0%)', '0 (0%)', '256 (100%)'],
  );
}

/** Asserts podman left no container, no container namespace of its own and no cached result. */
async function expectTornDown(ctx: PodmanNetwork, netnsBefore: Set<string>): Promise<void> {
  const ps = await ctx.podman.run(['ps', '--all', '--quiet']);
  expect(ps).toMatchObject({ status: 0, stdout: '' });
  expect(cniNamespaces().filter((n) => !netnsBefore.has(n))).toEqual([]);
  const results = existsSync('/var/lib/cni/results')
    ? readdirSync('/var/lib/cni/results').filter((f) => f.startsWith(`${ctx.network}-`))
    : [];
  expect(results).toEqual([]);
}

const modes: { mode: AgentMode; name: string }[] = [
  { mode: 'running', name: 'through netledger-node' },
  { mode: 'stopped', name: 'with netledger-node stopped' },
];

describe.each(modes)(
  'podman (CNI backend, runc) with netledger-ipam under bridge, $name',
  ({ mode }) => {
    const ctx = usePodmanNetwork(mode);
    let netnsBefore: Set<string>;

    it(`${CONTAINERS} containers started at once: distinct addresses, never the gateway, each reaching the gateway and a neighbour`, async () => {
      netnsBefore = new Set(cniNamespaces());
      const shared = join(ctx.tmp.path, 'shared');
      mkdirSync(shared);
      const runs = await Promise.all(
        Array.from({ length: CONTAINERS }, (_, id) =>
          ctx.runScript({ id, n: CONTAINERS, shared, options: ['--rm'] }),
        ),
      );
      for (const r of runs) expect(r, r.stderr).toMatchObject({ status: 0 });
      expectConnected(readResults(shared, CONTAINERS));
    }, 300_000);

    it('after they exit, netledgerctl ipam check finds nothing in use and ipam show counts the three reserved', () => {
      expectNothingInUse(ctx);
    });

    it('podman tore everything down: no containers, no container namespaces, no cached results', async () => {
      await expectTornDown(ctx, netnsBefore);
    });

    it(
      mode === 'running'
        ? 'netledger-node answered every ADD and DEL podman made'
        : "netledger-node's socket stayed behind, unanswered: the plugin fell back every time",
      async () => {
        const status = await ctx.agent!.status();
        if (mode === 'stopped') {
          expect(status).toBeUndefined();
          expect(statSync(ctx.socket).isSocket()).toBe(true);
          return;
        }
        expect(answered(status!, 'ADD')).toBe(CONTAINERS);
        expect(answered(status!, 'DEL')).toBeGreaterThanOrEqual(CONTAINERS);
      },
    );
  },
);

describe('podman (CNI backend, runc) with netledger-ipam under bridge, with netledger-node paused (SIGSTOP: bounded wait)', () => {
  const ctx = usePodmanNetwork('paused', { agent_answer_timeout: ANSWER_TIMEOUT_S });
  let netnsBefore: Set<string>;
  const timings = { failed: NaN, retried: NaN };

  const shared = (): string => join(ctx.tmp.path, 'shared');
  const names = Array.from({ length: PAUSED_CONTAINERS }, (_, id) => `paused${id}`);
  const socketMsg = (): string =>
    `the node agent at ${ctx.socket} did not answer within ${ANSWER_TIMEOUT_S} s: try again later`;

  it(`${PAUSED_CONTAINERS} containers started at once each fail with the plugin's "try again later" naming the socket; none runs, nothing is allocated once the resumed agent has dropped the requests`, async () => {
    netnsBefore = new Set(cniNamespaces());
    mkdirSync(shared());
    // A node's long-lived bridge (see addPinnedBridge): the retry below must not trip over the
    // bridge plugin's own failure on a bridge these failed ADDs leave without ports.
    addPinnedBridge(ctx.hostNetns, ctx.bridge);
    let runs: PodmanRun[];
    const started = performance.now();
    try {
      runs = await Promise.all(
        names.map((name, id) =>
          ctx.runScript({ id, n: PAUSED_CONTAINERS, shared: shared(), options: ['--name', name] }),
        ),
      );
    } finally {
      ctx.agent!.resume(); // every client has given up by now
    }
    timings.failed = performance.now() - started;
    for (const r of runs) {
      // bridge relays the plugin's error (code 11, which podman does not print) and podman its
      // message; podman then tears the attachment down, whose DEL fails the same way.
      expect(r.status, r.stderr).toBe(126);
      expect(r.stderr).toContain(
        `Error: plugin type="bridge" failed (add): cni plugin bridge failed: ${socketMsg()}\n`,
      );
      expect(r.stderr.match(/failed \(delete\): cni plugin bridge failed: (.*?)\\n/g)).toEqual([
        `failed (delete): cni plugin bridge failed: ${socketMsg()}\\n`,
      ]);
    }
    // Created, never started.
    const ps = await ctx.podman.run(['ps', '--all', '--format', '{{.Names}} {{.State}}']);
    expect(ps.stdout.trim().split('\n').sort()).toEqual(names.map((n) => `${n} Created`));
    expect(readdirSync(shared())).toEqual([]);
    // Each request was sent whole before its client gave up: the resumed agent reads it, finds
    // the client gone, and drops it (or rolls its ADD back).
    const status = await waitForStatus(ctx.agent!, (s) =>
      expect({ ADD: abandoned(s, 'ADD'), DEL: abandoned(s, 'DEL') }).toEqual({
        ADD: PAUSED_CONTAINERS,
        DEL: PAUSED_CONTAINERS,
      }),
    );
    expect({ ADD: answered(status, 'ADD'), inFlight: status.inFlight }).toEqual({
      ADD: 0,
      inFlight: 0,
    });
    expectNothingInUse(ctx, 0); // not even the gateway's reservation: no ADD ran
  }, 120_000);

  it("the same containers started again (the runtime's retry) go through the resumed agent: distinct addresses, each reaching the gateway and a neighbour", async () => {
    const started = performance.now();
    const runs = await Promise.all(
      names.map((name) => ctx.podman.run(['start', '--attach', name])),
    );
    timings.retried = performance.now() - started;
    for (const r of runs) expect(r, r.stderr).toMatchObject({ status: 0 });
    expectConnected(readResults(shared(), PAUSED_CONTAINERS));
    expect(answered((await ctx.agent!.status())!, 'ADD')).toBe(PAUSED_CONTAINERS);
  }, 120_000);

  it('once removed, netledgerctl ipam check finds nothing in use, podman tore everything down, and the agent answered every retried ADD and DEL', async () => {
    expect(await ctx.podman.run(['rm', ...names])).toMatchObject({ status: 0 });
    expectNothingInUse(ctx);
    await expectTornDown(ctx, netnsBefore);
    const status = (await ctx.agent!.status())!;
    expect(answered(status, 'ADD')).toBe(PAUSED_CONTAINERS);
    expect(answered(status, 'DEL')).toBeGreaterThanOrEqual(PAUSED_CONTAINERS);
    expect(abandoned(status, 'ADD')).toBe(PAUSED_CONTAINERS);
    console.log(
      `podman, netledger-node paused: ${PAUSED_CONTAINERS} failed runs ${(timings.failed / 1000).toFixed(1)} s, ` +
        `their retry ${(timings.retried / 1000).toFixed(1)} s`,
    );
  });
});
