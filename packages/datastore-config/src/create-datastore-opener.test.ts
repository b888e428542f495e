import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createIpamClient } from '@netledger/ipam-core';
import type { Datastore } from '@netledger/ipam-core';
import { createTempDir } from '@netledger/testkit';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createDatastoreOpener } from './create-datastore-opener.js';
import type { DatastoreOpenerOptions, OpenEtcdGrpc } from './store-opener.js';

let dir: Awaited<ReturnType<typeof createTempDir>> | undefined;
const opened: Datastore[] = [];
afterEach(async () => {
  for (const ds of opened.splice(0)) await ds.close();
  await dir?.remove();
  dir = undefined;
});

const POOL = { metadata: { name: 'p' }, spec: { cidr: '10.9.0.0/24' } };

function options(over: Partial<DatastoreOpenerOptions> = {}): DatastoreOpenerOptions {
  return {
    user: () => ({ uid: 1000, home: dir?.path ?? '/nonexistent' }),
    etcd: {
      transport: 'http',
      loadGrpc: () => Promise.reject(new Error('gRPC must not be loaded')),
    },
    ...over,
  };
}

const track = (ds: Datastore): Datastore => {
  opened.push(ds);
  return ds;
};

describe('createDatastoreOpener: file', () => {
  it('opens the file store at the configured path, as a real store', async () => {
    dir = await createTempDir('netledger-opener-');
    const path = join(dir.path, 'ds.json');
    // The user (whose home may cost a passwd lookup) is not asked for a configured path.
    const user = vi.fn(() => ({ uid: 1000, home: '/nonexistent' }));
    const opener = createDatastoreOpener(options({ user }));
    const first = await opener.open({ type: 'file', path });
    await createIpamClient({ datastore: first }).pools.create(POOL);
    await first.close();
    const again = track(await opener.open({ type: 'file', path }, { mayCreate: false }));
    expect(await createIpamClient({ datastore: again }).pools.list()).toMatchObject([POOL]);
    expect(user).not.toHaveBeenCalled();
  });

  it('opens the file store read-only when asked: nothing beside it is created, writes fail', async () => {
    dir = await createTempDir('netledger-opener-');
    const path = join(dir.path, 'ds.json');
    const opener = createDatastoreOpener(options());
    const first = await opener.open({ type: 'file', path });
    await createIpamClient({ datastore: first }).pools.create(POOL);
    await first.close();
    const names = readdirSync(dir.path).sort();
    const ro = track(
      await opener.open({ type: 'file', path }, { mayCreate: false, readOnly: true }),
    );
    const ipam = createIpamClient({ datastore: ro });
    expect(await ipam.pools.list()).toMatchObject([POOL]);
    await expect(
      ipam.pools.create({ metadata: { name: 'q' }, spec: { cidr: '10.8.0.0/24' } }),
    ).rejects.toMatchObject({ code: 'Unavailable' });
    expect(readdirSync(dir.path).sort()).toEqual(names);
  });

  it.each([
    ['in ~/.local/state without XDG_STATE_HOME', undefined, ['.local', 'state']],
    ['in XDG_STATE_HOME when it is absolute', 'xdg', ['xdg']],
  ])('puts a store with no path at the user default, %s', async (_, xdg, under) => {
    dir = await createTempDir('netledger-opener-');
    const xdgStateHome = xdg === undefined ? undefined : join(dir.path, xdg);
    const opener = createDatastoreOpener(
      options({ user: () => ({ uid: 1000, home: dir!.path, xdgStateHome }) }),
    );
    const ds = track(await opener.open({ type: 'file' }));
    await createIpamClient({ datastore: ds }).pools.create(POOL);
    expect(existsSync(join(dir.path, ...under, 'netledger', 'datastore.json'))).toBe(true);
  });

  it('refuses a missing store when it may not create one, and creates nothing', async () => {
    dir = await createTempDir('netledger-opener-');
    const path = join(dir.path, 'sub', 'none.json');
    const opener = createDatastoreOpener(options());
    await expect(opener.open({ type: 'file', path }, { mayCreate: false })).rejects.toMatchObject({
      code: 'NoDatastore',
      message: `no datastore at ${path} (set NETLEDGER_DATASTORE_PATH, or create a pool first)`,
    });
    await opener.preload({ type: 'file', path });
    expect(existsSync(join(dir.path, 'sub'))).toBe(false);
  });

  it('sends a store whose file was lost beside its previous generation to repair, not to "create a pool"', async () => {
    dir = await createTempDir('netledger-opener-');
    const path = join(dir.path, 'ds.json');
    const opener = createDatastoreOpener(options());
    const ds = await opener.open({ type: 'file', path });
    await createIpamClient({ datastore: ds }).pools.create(POOL);
    await createIpamClient({ datastore: ds }).pools.create({
      metadata: { name: 'q' },
      spec: { cidr: '10.8.0.0/24' },
    });
    await ds.close();
    rmSync(path);
    const before = readdirSync(dir.path).sort();
    for (const call of [{ mayCreate: false }, { mayCreate: false, readOnly: true }]) {
      await expect(opener.open({ type: 'file', path }, call)).rejects.toMatchObject({
        code: 'CorruptValue',
        message: expect.stringContaining('netledgerctl datastore repair'),
      });
    }
    expect(readdirSync(dir.path).sort()).toEqual(before);
  });

  it("passes the app's file options to the store", async () => {
    dir = await createTempDir('netledger-opener-');
    const history = async (historyLimit: number): Promise<unknown[]> => {
      const path = join(dir!.path, `ds-${historyLimit}.json`);
      const opener = createDatastoreOpener(options({ file: { historyLimit } }));
      const ds = await opener.open({ type: 'file', path });
      const client = createIpamClient({ datastore: ds });
      for (const i of [1, 2, 3]) {
        await client.pools.create({
          metadata: { name: `p${i}` },
          spec: { cidr: `10.${i}.0.0/24` },
        });
      }
      await ds.close();
      return (JSON.parse(readFileSync(path, 'utf8')) as { history: unknown[] }).history;
    };
    expect(await history(1)).toHaveLength(1);
    expect(await history(3)).toHaveLength(3);
  });
});

describe('createDatastoreOpener: etcd without a server', () => {
  const config = { type: 'etcdv3', endpoints: 'http://127.0.0.1:9' } as const;

  it.each([
    [
      'a bad endpoint',
      { ...config, endpoints: 'ftp://x' },
      'etcd endpoint "ftp://x" is not an http(s)://host:port URL',
    ],
    [
      'an unreadable TLS file',
      { ...config, tls: { ca: '/nonexistent/ca.pem' } },
      '/nonexistent/ca.pem',
    ],
    [
      'a password without a user',
      { ...config, password: 'p' },
      'etcd password given without a username',
    ],
  ])('reports %s as an invalid value', async (_, bad, message) => {
    await expect(createDatastoreOpener(options()).open(bad)).rejects.toMatchObject({
      name: 'DatastoreConfigError',
      code: 'InvalidValue',
      message: expect.stringContaining(message),
    });
  });

  it('uses the gRPC loader only for a config or an app default that asks for gRPC', async () => {
    const fake = { close: async () => undefined } as unknown as Datastore;
    const open = vi.fn<OpenEtcdGrpc>(() => fake);
    const loadGrpc = vi.fn(async () => open);
    const http = createDatastoreOpener(
      options({ etcd: { transport: 'http', loadGrpc, dialTimeoutMs: 7 } }),
    );
    track(await http.open(config));
    await http.preload(config);
    expect(loadGrpc).not.toHaveBeenCalled();
    expect(await http.open({ ...config, transport: 'grpc', username: 'u' })).toBe(fake);
    expect(open).toHaveBeenLastCalledWith({
      endpoints: ['http://127.0.0.1:9'],
      username: 'u',
      dialTimeoutMs: 7,
    });
    const grpc = createDatastoreOpener(options({ etcd: { transport: 'grpc', loadGrpc } }));
    await grpc.preload(config);
    expect(loadGrpc).toHaveBeenCalledTimes(2);
    track(await grpc.open({ ...config, transport: 'http' }));
    expect(loadGrpc).toHaveBeenCalledTimes(2);
  });
});

describe('createDatastoreOpener: kubernetes', () => {
  it.each([
    [
      { type: 'kubernetes', kubeconfig: '/nonexistent/kubeconfig' } as const,
      /\/nonexistent\/kubeconfig: ENOENT/,
    ],
    [{ type: 'kubernetes' } as const, /in-cluster service account: KUBERNETES_SERVICE_HOST/],
    [
      { type: 'kubernetes', kubeconfig: '/k', calicoApiGroup: 'projectcalico.org/v2' } as const,
      /calicoApiGroup must be crd\.projectcalico\.org\/v1 or projectcalico\.org\/v3/,
    ],
  ])(
    'opens datastore-k8s with the kubeconfig, else in-cluster; what it refuses is InvalidValue (%j)',
    async (config, says) => {
      const opener = createDatastoreOpener(options());
      await opener.preload(config);
      const { KUBERNETES_SERVICE_HOST: _, ...env } = process.env;
      const saved = process.env;
      process.env = env; // not in a pod, whatever the machine running the tests is
      try {
        await expect(opener.open(config)).rejects.toMatchObject({
          name: 'DatastoreConfigError',
          code: 'InvalidValue',
          message: expect.stringMatching(says),
        });
      } finally {
        process.env = saved;
      }
    },
  );
});
