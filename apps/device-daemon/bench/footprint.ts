// `pnpm bench --filter=@netledger/device-daemon-app` (after client-start.ts): what a device pays for
// netledger-device. The install is the one packaging/stage.mjs lays down, measured with du; the
// daemon is that install's launcher running `serve` in a network namespace of its own (real
// bridges and nft, no root), and its VmRSS is read from /proc at three points: serving a device
// without pools, serving a revision of 4 pools and 250 containers before any starts, and after
// all 250 have started (250 leases, each written crash-safe). Median of ROUNDS fresh daemons.
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { percentile, writeBenchResults } from '@netledger/bench';
import type { BenchResult } from '@netledger/bench';
import { createDeviceClient } from '@netledger/device-daemon/client';
import { buildApp } from '../test/build-app.js';
import { stageInstall } from '../test/stage-install.js';
import { startUnsharedDaemon } from './start-unshared-daemon.js';

const ROUNDS = 3;
const CONTAINERS = 250;

/** Disk usage of `paths` together, in KiB (`du -skc`). */
function duKiB(...paths: string[]): number {
  const out = execFileSync('du', ['-skc', ...paths], { encoding: 'utf8' });
  return Number(/^(\d+)\s+total$/m.exec(out)?.[1]);
}

/** VmRSS and VmHWM (peak) of `pid`, in MiB. */
function memory(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (key: string): number =>
    Number(new RegExp(`^${key}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1]);
  return { rss: kib('VmRSS') / 1024, hwm: kib('VmHWM') / 1024 };
}

/** A revision directory: no pools, or 4 /24 pools (two with NAT) and CONTAINERS containers. */
function writeRevision(dir: string, withContainers: boolean): void {
  mkdirSync(dir);
  const pools = withContainers
    ? Object.fromEntries(
        [0, 1, 2, 3].map((i) => [
          `pool${i}`,
          {
            bridge: `nlbr${i}`,
            subnet: `10.${60 + i}.0.0/24`,
            gateway: `10.${60 + i}.0.1`,
            nat: i % 2 === 0,
          },
        ]),
      )
    : {};
  writeFileSync(join(dir, 'device.json'), JSON.stringify({ network: { pools } }));
  if (!withContainers) return;
  for (let i = 0; i < CONTAINERS; i++) {
    const c = join(dir, `c${String(i).padStart(3, '0')}`);
    mkdirSync(c);
    const ip = i % 10 === 0 ? { ip: `10.${60 + (i % 4)}.0.${200 + Math.floor(i / 10)}` } : {};
    writeFileSync(
      join(c, 'run.json'),
      JSON.stringify({ network: { pool: `pool${i % 4}`, ...ip } }),
    );
    writeFileSync(join(c, 'lxc.container.conf'), 'lxc.namespace.keep = user net ipc\n');
  }
}

const tmp = mkdtempSync(join(tmpdir(), 'netledger-device-footprint-'));
let daemon: ChildProcess | undefined;
try {
  buildApp('netledger-device');
  const install = stageInstall({ build: 'netledger-device', dir: join(tmp, 'root') });
  const lib = install.libDir;
  const etc = join(tmp, 'root', 'etc');
  const node = realpathSync(process.execPath);

  // Node's own share: a bare Node that keeps running, measured once it has run its script.
  const bare = spawn(
    process.execPath,
    ['-e', 'process.stdout.write("up\\n"); setInterval(() => {}, 1e6)'],
    {
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  await new Promise((resolve) => bare.stdout.once('data', resolve));
  const bareRss = memory(bare.pid!).rss;
  bare.kill('SIGKILL');

  const empty = join(tmp, 'empty');
  const full = join(tmp, 'full');
  writeRevision(empty, false);
  writeRevision(full, true);
  const samples = { idle: [] as number[], applied: [] as number[], started: [] as number[] };
  const peaks: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const [state, key] of [
      [empty, 'idle'],
      [full, 'applied'],
    ] as const) {
      const socket = join(tmp, `api-${round}-${key}.sock`);
      const dataDir = join(tmp, `data-${round}-${key}`);
      daemon = await startUnsharedDaemon([
        install.launcher,
        'serve',
        '--state',
        state,
        '--data-dir',
        dataDir,
        '--socket',
        socket,
      ]);
      const pid = daemon.pid!;
      samples[key].push(memory(pid).rss);
      if (key === 'applied') {
        const client = createDeviceClient({ socketPath: socket });
        for (let i = 0; i < CONTAINERS; i++) await client.start(`c${String(i).padStart(3, '0')}`);
        const { leases } = await client.leases();
        if (leases.length !== CONTAINERS)
          throw new Error(`${leases.length} leases after the starts`);
        const m = memory(pid);
        samples.started.push(m.rss);
        peaks.push(m.hwm);
      }
      const exited = new Promise((r) => daemon!.once('exit', r));
      daemon.kill('SIGTERM');
      await exited;
      daemon = undefined;
    }
  }
  const median = (xs: number[]): number =>
    percentile(
      [...xs].sort((a, b) => a - b),
      50,
    );
  const size = (name: string, value: number, unit = 'KiB'): BenchResult => ({
    name,
    value,
    unit,
    better: 'lower',
  });
  const mib = (name: string, value: number): BenchResult => size(name, value, 'MiB');
  const installed = duKiB(install.prefix, etc);
  writeBenchResults('device-footprint', {
    title: 'netledger-device on a device: install size and memory of the serving daemon',
    command: 'pnpm bench --filter=@netledger/device-daemon-app',
    notes: `Sizes: \`du -sk\` of what \`node apps/device-daemon/packaging/stage.mjs\` installs (for ${process.arch}; the netlink addon of that architecture only) and of the Node.js binary (${node}, ${process.version}; the shared C/C++ libraries it links are not counted). Memory: VmRSS of the daemon (the staged launcher's \`serve\`, Node's default flags) in a network namespace of its own (unshare --net --map-root-user) with real bridges and nft, read right after it logs "listening" and right after the last of ${CONTAINERS} sequential starts over its API; median of ${ROUNDS} fresh daemons per figure. The revision: 4 pools (/24, two with NAT), ${CONTAINERS} pool containers, every tenth with a static IP.`,
    results: [
      size('installed by stage.mjs, in all', installed),
      size(
        'bundle (netledger-device.mjs: the daemon and every verb)',
        duKiB(join(lib, 'netledger-device.mjs')),
      ),
      size(
        'client start-up snapshot (.blob and its .snapshot.cjs entry)',
        duKiB(join(lib, 'netledger-device.blob'), join(lib, 'netledger-device.snapshot.cjs')),
      ),
      size('netlink package (JS, addon, node-gyp-build)', duKiB(join(lib, 'node_modules'))),
      size('netlink native addon (node.napi.node)', duKiB(install.addon)),
      size(
        'launcher, unit, init script, settings',
        duKiB(install.launcher, install.unit, install.initScript, install.defaults),
      ),
      mib('Node.js binary', duKiB(node) / 1024),
      mib('bare Node.js process, idle (node -e with a timer), for comparison', bareRss),
      mib('daemon RSS serving, no pools (nothing set up)', median(samples.idle)),
      mib(
        `daemon RSS serving ${CONTAINERS} containers' revision, none started`,
        median(samples.applied),
      ),
      mib(
        `daemon RSS with all ${CONTAINERS} containers started (${CONTAINERS} leases)`,
        median(samples.started),
      ),
      mib(`daemon peak RSS (VmHWM) through the ${CONTAINERS} starts`, median(peaks)),
    ],
  });
} finally {
  daemon?.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
}
