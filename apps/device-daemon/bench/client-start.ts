// `pnpm bench --filter=@netledger/device-daemon-app`: what an LXC hook pays for
// `netledger-device start NAME`, executed through the bin/ launcher (the client start-up snapshot),
// side by side with a bare `node -e 0` in one run. The daemon is the real one, bundled, in a
// network namespace of its own (`unshare --net --map-root-user`: real bridge and nft, nothing on
// the host, gone when it exits), with its real file stores.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { percentile, writeBenchResults } from '@netledger/bench';
import type { BenchResult } from '@netledger/bench';
import { createDeviceClient } from '@netledger/device-daemon/client';
import { buildApp } from '../test/build-app.js';
import { linkLauncher } from '../test/link-launcher.js';
import { startUnsharedDaemon } from './start-unshared-daemon.js';

const ROUNDS = 60;
const WARM_UP = 3;

function exec(file: string, args: readonly string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(file, [...args], {
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => {
      const ms = performance.now() - start;
      if (code === 0) resolve(ms);
      else reject(new Error(`${file} ${args.join(' ')}: exit ${code}: ${stderr}`));
    });
  });
}

const tmp = mkdtempSync(join(tmpdir(), 'netledger-device-bench-'));
let daemon: ChildProcess | undefined;
try {
  const build = buildApp('netledger-device');
  const launcher = linkLauncher(build, join(tmp, 'ws'));
  const state = join(tmp, 'state');
  const names = Array.from(
    { length: ROUNDS + WARM_UP },
    (_, i) => `c${String(i).padStart(3, '0')}`,
  );
  mkdirSync(state);
  writeFileSync(
    join(state, 'device.json'),
    JSON.stringify({
      network: {
        pools: {
          bench: { bridge: 'nlbench0', subnet: '10.91.0.0/24', gateway: '10.91.0.1', nat: true },
        },
      },
    }),
  );
  for (const name of names) {
    mkdirSync(join(state, name));
    writeFileSync(join(state, name, 'run.json'), '{"network":{"pool":"bench"}}');
    writeFileSync(join(state, name, 'lxc.container.conf'), 'lxc.namespace.keep = user net ipc\n');
  }
  const socket = join(tmp, 'api.sock');
  daemon = await startUnsharedDaemon([
    process.execPath,
    build.bundle,
    'serve',
    '--state',
    state,
    '--data-dir',
    join(tmp, 'data'),
    '--socket',
    socket,
  ]);
  const inProcess = createDeviceClient({ socketPath: socket });
  const t = {
    fresh: [] as number[],
    held: [] as number[],
    bare: [] as number[],
    bareFlags: [] as number[],
    bundle: [] as number[],
    round: [] as number[],
  };
  // Interleaved, so every variant sees the same machine load.
  for (const [i, name] of names.entries()) {
    const start = ['start', name, '--socket', socket];
    const fresh = await exec(launcher, start);
    const held = await exec(launcher, start);
    const bare = await exec(process.execPath, ['-e', '0']);
    const bareFlags = await exec(process.execPath, [...build.snapshotFlags, '-e', '0']);
    const bundle = await exec(process.execPath, [build.bundle, ...start]);
    const t0 = performance.now();
    await inProcess.start(name);
    const round = performance.now() - t0;
    if (i < WARM_UP) continue;
    t.fresh.push(fresh);
    t.held.push(held);
    t.bare.push(bare);
    t.bareFlags.push(bareFlags);
    t.bundle.push(bundle);
    t.round.push(round);
  }
  const p = (xs: number[], q: number): number =>
    percentile(
      [...xs].sort((a, b) => a - b),
      q,
    );
  const ms = (name: string, value: number): BenchResult => ({
    name,
    value,
    unit: 'ms',
    better: 'lower',
  });
  const bare = p(t.bare, 50);
  const own = p(t.held, 50) - bare;
  const ownFresh = p(t.fresh, 50) - bare;
  const bareFlags = p(t.bareFlags, 50);
  writeBenchResults('device-client', {
    title: 'netledger-device client verbs (exec path, as an LXC hook runs `start`)',
    command: 'pnpm bench --filter=@netledger/device-daemon-app',
    notes: `${ROUNDS} rounds after ${WARM_UP} of warm-up, interleaved: \`start\` of a new container through bin/netledger-device (the launcher link-bins writes; the client start-up snapshot), \`start\` of it again (lease held: a restart), a bare \`node -e 0\` and one with the launcher's V8 flags (--no-rehash-snapshot spares Node's own snapshot the rehash that \`node -e 0\` pays, so a start can cost less than \`node -e 0\`: a negative own work), the same start from the plain bundle (no snapshot), and the same start from a warm in-process client (the daemon's own share). The daemon is the bundled one in its own network namespace (unshare --net --map-root-user) with a /24 NAT pool, its file stores and fsync; a new lease is one crash-safe write. "Own work" is a start's p50 minus node -e 0's p50.`,
    results: [
      ms('start via the launcher, lease held (restart) p50', p(t.held, 50)),
      ms('start via the launcher, lease held (restart) p99', p(t.held, 99)),
      ms('start via the launcher, new lease (first start) p50', p(t.fresh, 50)),
      ms('node -e 0 p50 (bare Node start-up)', bare),
      ms('start (lease held) minus node -e 0 (the client own work)', own),
      {
        name: 'start own work / bare Node start-up',
        value: own / bare,
        unit: 'x',
        better: 'lower',
        target: '<= 0.5',
      },
      {
        name: 'first start own work / bare Node start-up',
        value: ownFresh / bare,
        unit: 'x',
        better: 'lower',
      },
      ms(
        `node ${build.snapshotFlags.join(' ')} -e 0 p50 (bare start-up, the launcher's V8 flags)`,
        bareFlags,
      ),
      {
        name: 'start (lease held) minus that, over it (own work beyond the same flags)',
        value: (p(t.held, 50) - bareFlags) / bareFlags,
        unit: 'x',
        better: 'lower',
      },
      ms('start from the plain bundle (no snapshot), lease held p50', p(t.bundle, 50)),
      ms('daemon round trip from a warm client, lease held p50', p(t.round, 50)),
    ],
  });
} finally {
  daemon?.kill('SIGTERM');
  rmSync(tmp, { recursive: true, force: true });
}
