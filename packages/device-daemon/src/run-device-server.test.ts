// runDeviceServer with its real adapters (file stores, HTTP API on a unix socket, nft through a
// recording script on PATH, /proc in a temp dir) and a fake netlink socket: what the daemon opens
// and runs on the host, without root.
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDeviceClient } from './device-client.js';
import type { DeviceServer } from './run-device-server.js';
import { runDeviceServer } from './run-device-server.js';
import { createMemoryLogger, fakeRouteSocket } from './test-fakes.js';

let dir: string;
let server: DeviceServer | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nl-server-'));
  await mkdir(join(dir, 'bin'));
  await mkdir(join(dir, 'proc/sys/net/ipv4'), { recursive: true });
  for (const tool of ['nft', 'iptables', 'ip6tables']) {
    const path = join(dir, 'bin', tool);
    await writeFile(
      path,
      `#!/bin/sh\necho ${tool} "$@" >> ${join(dir, 'ran')}\n/bin/cat > /dev/null\n`,
    );
    await chmod(path, 0o755);
  }
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

async function writeState(name: string, files: Record<string, string>): Promise<string> {
  const root = join(dir, name);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return root;
}

async function ran(): Promise<string[]> {
  const text = await readFile(join(dir, 'ran'), 'utf8').catch(() => '');
  return text.split('\n').filter((l) => l !== '');
}

function start(stateDir: string | undefined) {
  let opens = 0;
  const socket = fakeRouteSocket();
  const logger = createMemoryLogger();
  const running = runDeviceServer({
    stateDir,
    dataDir: join(dir, 'data'),
    socketPath: join(dir, 'api.sock'),
    logger,
    clock: { now: () => 0 },
    path: join(dir, 'bin'),
    procRoot: join(dir, 'proc'),
    openRouteSocket: async () => {
      opens++;
      return socket;
    },
  });
  return { running, socket, logger, opens: () => opens };
}

const POOL = JSON.stringify({
  network: {
    pools: {
      internal: { bridge: 'pvbr0', subnet: '10.0.5.0/24', gateway: '10.0.5.1', nat: true },
    },
  },
});

describe('runDeviceServer', () => {
  it('opens no netlink socket and runs no NAT tool without pools or network blocks', async () => {
    const state = await writeState('plain', { 'device.json': '{}', 'app/run.json': '{}' });
    const s = start(state);
    server = await s.running;
    const client = createDeviceClient({ socketPath: join(dir, 'api.sock') });
    await client.apply();
    expect(await client.start('app')).toMatchObject({ lxc: '' });
    expect(s.opens()).toBe(0);
    expect(await ran()).toEqual([]);
  });

  it('opens one netlink socket on first need, for all its bridges, and closes it', async () => {
    const state = await writeState('pools', {
      'device.json': POOL,
      'app/run.json': '{"network":{"pool":"internal"}}',
    });
    const s = start(state);
    server = await s.running;
    const client = createDeviceClient({ socketPath: join(dir, 'api.sock') });
    await client.apply();
    expect(s.opens()).toBe(1);
    expect(s.socket.types.length).toBeGreaterThan(0);
    expect(await ran()).toEqual(['nft -f -', 'nft -f -']);
    expect(await readFile(join(dir, 'proc/sys/net/ipv4/ip_forward'), 'utf8')).toBe('1\n');
    await server.close();
    server = undefined;
    expect(s.socket.closed).toBe(true);
  });

  it('boots on a refused revision by serving the last good one, with the API up', async () => {
    const good = await writeState('good', {
      'device.json': POOL,
      'app/run.json': '{"network":{"pool":"internal"}}',
    });
    const first = start(good);
    server = await first.running;
    const client = createDeviceClient({ socketPath: join(dir, 'api.sock') });
    const lease = (await client.start('app')).leases[0];
    await server.close();
    const bad = await writeState('bad', {
      'device.json': POOL.replace('10.0.5.0/24', '10.0.5.0/abc'),
      'app/run.json': '{"network":{"pool":"internal"}}',
    });
    const again = start(bad);
    server = await again.running;
    expect(server.boot).toMatchObject({
      inForce: 'last-good',
      refused: { code: 'InvalidPool', field: 'network.pools.internal.subnet' },
    });
    // The last good revision's bridge is set up again (after a reboot it would be gone).
    expect(again.opens()).toBe(1);
    expect(await client.health()).toMatchObject({
      revision: true,
      refused: { code: 'InvalidPool' },
    });
    await expect(client.start('app')).rejects.toMatchObject({ code: 'RevisionRefused' });
    expect((await client.leases()).leases).toEqual([lease]);
    const refusals = again.logger.lines.filter((l) => l.msg.startsWith('revision refused'));
    expect(refusals).toHaveLength(1);
  });
});
