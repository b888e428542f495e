// End to end under a real container runtime (issue 14): Debian's podman 4.3 on its CNI backend
// with runc, containers of a static busybox root file system (--rootfs), on a bridge network whose
// IPAM is netledger-ipam in gateway mode, the plugin installed with `netledger-ipam install` into
// a temporary CNI bin dir beside Debian's /usr/lib/cni plugins, the conflist the install writes.
// Ten containers start at once; each must get its own address, neither the gateway nor the
// network or broadcast address, and reach the gateway and another container; once they have
// exited, netledgerctl ipam check finds nothing in use. Twice: with netledger-node, the node agent,
// serving the plugin, and with it stopped (killed, its socket left behind: the plugin falls back).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createFileDatastore } from '@netledger/datastore-file';
import { createIpamClient } from '@netledger/ipam-core';
import { createNetnsPool, createTempDir } from '@netledger/testkit';
import type { NetnsPool } from '@netledger/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answered, setUpAgent } from './agent-harness.js';
import type { AgentMode, AgentSetup } from './agent-harness.js';
import { BIN_DIR, requirePlugin } from './exec-harness.js';
import {
  createPodman,
  currentUlimits,
  makeBusyboxRootfs,
  requirePodmanPrerequisites,
} from './podman-harness.js';

const CONTAINERS = 10;
const POOL = '10.126.0.0/24';
const GATEWAY = '10.126.0.1';
const NEVER_GIVEN = ['10.126.0.0', GATEWAY, '10.126.0.255'];

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

const modes: { mode: AgentMode; name: string }[] = [
  { mode: 'running', name: 'through netledger-node' },
  { mode: 'stopped', name: 'with netledger-node stopped' },
];

describe.each(modes)(
  'podman (CNI backend, runc) with netledger-ipam under bridge, $name',
  ({ mode }) => {
    let tmp: { path: string; remove: () => Promise<void> };
    let netns: NetnsPool;
    let podman: ReturnType<typeof createPodman>;
    let network: string;
    let bridge: string;
    let dsPath: string;
    let netnsBefore: Set<string>;
    let agent: AgentSetup | undefined;

    const netledgerctl = (args: string[]): string =>
      execFileSync(join(BIN_DIR, 'netledgerctl'), args, {
        env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', NETLEDGER_DATASTORE_PATH: dsPath },
        encoding: 'utf8',
      });

    beforeAll(async () => {
      requirePlugin();
      requirePodmanPrerequisites();
      tmp = await createTempDir('netledger-podman-');
      netns = createNetnsPool();
      const host = netns.create('pm-h');
      const suffix = host.slice(-6);
      network = `nlpod${suffix}`;
      bridge = `nlpb${suffix}`;
      dsPath = join(tmp.path, 'store', 'datastore.json');
      const cniBinDir = join(tmp.path, 'cni-bin');
      const networkDir = join(tmp.path, 'net');
      // The plugin and the network config, laid down by the install step, beside the agent.
      const ds = await createFileDatastore({ path: dsPath });
      await createIpamClient({ datastore: ds }).pools.create({
        metadata: { name: 'podman' },
        spec: { cidr: POOL },
      });
      await ds.close();
      agent = await setUpAgent({
        mode,
        binDir: cniBinDir,
        socket: join(tmp.path, 'run', 'node.sock'),
        nodename: hostname(),
        datastorePath: dsPath,
        installArgs: [
          '--conf-dir',
          networkDir,
          '--network',
          network,
          '--bridge',
          bridge,
          '--pool',
          POOL,
          '--datastore-path',
          dsPath,
          '--lock-file',
          join(tmp.path, 'ipam.lock'),
        ],
      });
      makeBusyboxRootfs(join(tmp.path, 'rootfs'));
      writeFileSync(join(tmp.path, 'rootfs', 'run.sh'), SCRIPT);
      podman = createPodman({
        dir: join(tmp.path, 'podman'),
        hostNetns: host,
        cniBinDir,
        networkDir,
      });
    }, 120_000);

    afterAll(async () => {
      try {
        await podman?.removeAll();
      } finally {
        await agent?.stop();
        netns?.cleanup(); // the host namespace, and with it the bridge, veths and iptables rules
        await tmp?.remove();
      }
    }, 120_000);

    it(`${CONTAINERS} containers started at once: distinct addresses, never the gateway, each reaching the gateway and a neighbour`, async () => {
      netnsBefore = new Set(cniNamespaces());
      const limits = currentUlimits();
      const shared = join(tmp.path, 'shared');
      execFileSync('mkdir', ['-p', shared]);
      const runs = await Promise.all(
        Array.from({ length: CONTAINERS }, (_, i) =>
          podman.run([
            'run',
            '--rm',
            '--network',
            network,
            // Podman would raise these past what a process without CAP_SYS_RESOURCE may set.
            '--ulimit',
            `nofile=${limits.nofile}`,
            '--ulimit',
            `nproc=${limits.nproc}`,
            '-e',
            `ID=${i}`,
            '-e',
            `N=${CONTAINERS}`,
            '-v',
            `${shared}:/shared`,
            '--rootfs',
            join(tmp.path, 'rootfs'),
            '/bin/sh',
            '/run.sh',
          ]),
        ),
      );
      for (const r of runs) expect(r, r.stderr).toMatchObject({ status: 0 });
      const seen = Array.from({ length: CONTAINERS }, (_, i) => {
        const [address, gateway, route, pingGateway, peer, pingPeer] = readFileSync(
          join(shared, `result${i}`),
          'utf8',
        )
          .trim()
          .split('|');
        return { address: address!, gateway, route: route!, pingGateway, peer, pingPeer };
      });
      const addresses = seen.map((s) => s.address);
      expect(new Set(addresses).size).toBe(CONTAINERS);
      for (const s of seen) {
        expect(s.address).toMatch(/^10\.126\.0\.\d+\/24$/);
        expect(NEVER_GIVEN).not.toContain(s.address.split('/')[0]);
        expect(s).toMatchObject({ gateway: GATEWAY, pingGateway: 'ok', pingPeer: 'ok' });
        // The gateway is the bridge's, reached over eth0, never a local address of the container.
        expect(s.route).toMatch(new RegExp(`^${GATEWAY.replace(/\./g, '\\.')} dev eth0 `));
        expect(s.route).not.toContain('local');
      }
    }, 300_000);

    it('after they exit, netledgerctl ipam check finds nothing in use and ipam show counts the three reserved', () => {
      const check = netledgerctl(['ipam', 'check']);
      expect(check).toContain('IPAM blocks record 0 allocations.');
      expect(check).toContain('Check complete; found 0 problems.');
      expect(netledgerctl(['ipam', 'show'])).toMatch(
        /\| IP Pool\s+\| 10\.126\.0\.0\/24 \|\s+256 \|\s+0 \(0%\) \|\s+3 \(1%\) \|\s+253 \(99%\) \|/,
      );
    });

    it('podman tore everything down: no containers, no container namespaces, no cached results', async () => {
      const ps = await podman.run(['ps', '--all', '--quiet']);
      expect(ps).toMatchObject({ status: 0, stdout: '' });
      expect(cniNamespaces().filter((n) => !netnsBefore.has(n))).toEqual([]);
      const results = existsSync('/var/lib/cni/results')
        ? readdirSync('/var/lib/cni/results').filter((f) => f.startsWith(`${network}-`))
        : [];
      expect(results).toEqual([]);
    });

    it(
      mode === 'running'
        ? 'netledger-node answered every ADD and DEL podman made'
        : "netledger-node's socket stayed behind, unanswered: the plugin fell back every time",
      async () => {
        const status = await agent!.status();
        if (mode === 'stopped') {
          expect(status).toBeUndefined();
          expect(statSync(join(tmp.path, 'run', 'node.sock')).isSocket()).toBe(true);
          return;
        }
        expect(answered(status!, 'ADD')).toBe(CONTAINERS);
        expect(answered(status!, 'DEL')).toBeGreaterThanOrEqual(CONTAINERS);
      },
    );
  },
);
