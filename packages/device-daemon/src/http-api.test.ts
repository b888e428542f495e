import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeviceClient } from './device-client.js';
import { createDeviceDaemon } from './device-daemon.js';
import { createHttpApi } from './http-api.js';
import { requestOverUnixSocket } from './unix-http.js';
import { revisionFiles } from './test-fixtures.js';
import { fakeDeps } from './test-fakes.js';

const files = revisionFiles({
  pools: {
    internal: {
      type: 'bridge',
      bridge: 'pvbr0',
      subnet: '10.0.5.0/29',
      gateway: '10.0.5.1',
      nat: true,
    },
  },
  containers: { a: { network: { pool: 'internal' } }, x: { network: { pool: 'missing' } } },
});

describe('HTTP API over a unix socket', () => {
  let dir: string;
  let server: Server;
  let client: ReturnType<typeof createDeviceClient>;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'nl-api-'));
    const f = fakeDeps();
    const daemon = createDeviceDaemon(f.deps);
    await daemon.init();
    server = createHttpApi({
      daemon,
      loadRevision: async (state) => {
        if (state === '/empty') return revisionFiles({});
        if (state !== '/rev') throw new Error('ENOENT');
        return files;
      },
      defaultStateDir: undefined,
      logger: f.logger,
    });
    const socketPath = join(dir, 'api.sock');
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    client = createDeviceClient({ socketPath });
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  it('applies, starts, lists and tears down', async () => {
    expect((await client.apply('/rev')).pools.map((p) => p.name)).toEqual(['internal']);
    const start = await client.start('a');
    expect(start.lxc).toContain('lxc.net.0.ipv4.address = 10.0.5.2/29');
    expect((await client.stop('a')).leases).toHaveLength(1);
    expect((await client.leases()).leases.map((l) => l.address)).toEqual(['10.0.5.2']);
    expect((await client.pools()).pools[0]).toMatchObject({ capacity: 5, leased: 1, free: 4 });
    expect(await client.health()).toMatchObject({ ok: true, revision: true, running: [] });
    expect(await client.metrics()).toContain(
      'netledger_device_pool_leased{pool="internal",family="4"} 1',
    );
    expect((await client.teardown('a')).released).toHaveLength(1);
  });

  it.each([
    ['a refused start', (c: typeof client) => c.start('x'), 'UnknownPool'],
    ['an unknown container', (c: typeof client) => c.stop('ghost'), 'UnknownContainer'],
    ['a missing state directory', (c: typeof client) => c.apply('/nope'), 'BadRequest'],
    ['apply without a state directory', (c: typeof client) => c.apply(), 'BadRequest'],
  ])('maps %s to its error code', async (_why, fn, code) => {
    await expect(fn(client)).rejects.toMatchObject({ code });
  });

  it('refuses a "force" that is not a JSON boolean', async () => {
    for (const force of ['true', 1, null]) {
      const answer = await requestOverUnixSocket({
        socketPath: join(dir, 'api.sock'),
        method: 'POST',
        path: '/v1/apply',
        body: JSON.stringify({ state: '/rev', force }),
      });
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body)).toMatchObject({
        error: {
          code: 'BadRequest',
          message: expect.stringContaining('"force" must be true or false'),
        },
      });
    }
  });

  it('refuses with 409 a revision that drops a running container’s lease, and applies it with "force": true', async () => {
    await client.apply('/rev');
    await client.start('a');
    const refusal = await requestOverUnixSocket({
      socketPath: join(dir, 'api.sock'),
      method: 'POST',
      path: '/v1/apply',
      body: JSON.stringify({ state: '/empty' }),
    });
    expect(refusal.status).toBe(409);
    expect(JSON.parse(refusal.body)).toMatchObject({ error: { code: 'DropsInUse' } });
    expect((await client.leases()).leases.map((l) => l.owner)).toEqual(['a']);
    const forced = await client.apply('/empty', { force: true });
    expect(forced.released.map((l) => l.owner)).toEqual(['a']);
    expect((await client.leases()).leases).toEqual([]);
  });

  it('reports an unreachable daemon', async () => {
    await expect(
      createDeviceClient({ socketPath: join(dir, 'none.sock') }).leases(),
    ).rejects.toMatchObject({ code: 'DaemonUnavailable' });
  });
});
