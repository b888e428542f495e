// Repair as a capability of the opener: the file store at the path `open` would use, the app's
// warnings as lines; any other store refused, nothing touched.
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createIpamClient } from '@netledger/ipam-core';
import { createTempDir } from '@netledger/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDatastoreOpener } from './create-datastore-opener.js';
import type { DatastoreOpenerOptions } from './store-opener.js';

let dir: { path: string; remove: () => Promise<void> };
beforeEach(async () => {
  dir = await createTempDir('netledger-opener-repair-');
});
afterEach(async () => {
  await dir.remove();
});

const options = (over: Partial<DatastoreOpenerOptions> = {}): DatastoreOpenerOptions => ({
  // A user whose default store is under the test directory.
  user: () => ({ uid: 1000, home: '/nonexistent', xdgStateHome: dir.path }),
  etcd: {
    transport: 'http',
    loadGrpc: () => Promise.reject(new Error('gRPC must not be loaded')),
  },
  ...over,
});

/** A store with two pools at `path`: the second write leaves the first as `<path>.prev`. */
async function twoPools(path: string): Promise<void> {
  const opener = createDatastoreOpener(options());
  const ds = await opener.open({ type: 'file', path });
  const ipam = createIpamClient({ datastore: ds });
  await ipam.pools.create({ metadata: { name: 'p' }, spec: { cidr: '10.9.0.0/24' } });
  await ipam.pools.create({ metadata: { name: 'q' }, spec: { cidr: '10.8.0.0/24' } });
  await ds.close();
}

describe('DatastoreOpener.repair', () => {
  it("restores the user's default store from its previous generation when the file is missing", async () => {
    const opener = createDatastoreOpener(options());
    const path = await opener.defaultFilePath();
    expect(path).toBe(join(dir.path, 'netledger', 'datastore.json'));
    await twoPools(path);
    await rm(path);
    const report = await opener.repair({ type: 'file' });
    expect(report).toMatchObject({ path, action: 'restored-previous', missing: true, objects: 1 });
    const ds = await opener.open({ type: 'file' }, { mayCreate: false, readOnly: true });
    try {
      expect(await createIpamClient({ datastore: ds }).pools.list()).toMatchObject([
        { metadata: { name: 'p' } },
      ]);
    } finally {
      await ds.close();
    }
  });

  it('with dryRun changes nothing', async () => {
    const path = join(dir.path, 'ds.json');
    await twoPools(path);
    const text = await readFile(path, 'utf8');
    await writeFile(path, text.slice(0, text.length - 30));
    const before = (await readdir(dir.path)).sort();
    const report = await createDatastoreOpener(options()).repair(
      { type: 'file', path },
      { mode: 'salvage', dryRun: true },
    );
    expect(report).toMatchObject({ action: 'salvaged', dryRun: true });
    expect((await readdir(dir.path)).sort()).toEqual(before);
  });

  it("tells the app's onFileWarning of a failed cleanup, as one line; the repair is done", async () => {
    const path = join(dir.path, 'ds.json');
    await twoPools(path);
    const text = await readFile(path, 'utf8');
    await writeFile(path, text.slice(0, text.length - 30));
    // Named as a temp file of an unfinished write, but a directory with a file in it.
    const temp = `${path}.tmp-1234-abcdef`;
    await mkdir(temp);
    await writeFile(join(temp, 'x'), '');
    const lines: string[] = [];
    const opener = createDatastoreOpener(options({ onFileWarning: (l) => lines.push(l) }));
    expect(await opener.repair({ type: 'file', path })).toMatchObject({
      action: 'restored-previous',
    });
    expect(lines).toEqual([
      expect.stringMatching(
        new RegExp(
          `^could not remove the temp file of an unfinished write ${temp.replaceAll('.', '\\.')}: EISDIR`,
        ),
      ),
    ]);
  });

  it.each([
    [{ type: 'etcdv3', endpoints: 'http://127.0.0.1:1' } as const, 'etcdv3'],
    [{ type: 'kubernetes', kubeconfig: '/nonexistent/kubeconfig' } as const, 'kubernetes'],
  ])('refuses a store that is not a file store, Unsupported (%j)', async (config, type) => {
    await expect(createDatastoreOpener(options()).repair(config)).rejects.toMatchObject({
      name: 'DatastoreConfigError',
      code: 'Unsupported',
      message: `repair works on the file store; this one is ${type} (restore it from its own backups)`,
    });
  });

  it("passes the store's refusal of a file that is not a store through, changing nothing", async () => {
    const path = join(dir.path, 'passwd');
    await writeFile(path, 'root:x:0:0:root:/root:/bin/bash\n');
    const before = (await readdir(dir.path)).sort();
    await expect(
      createDatastoreOpener(options()).repair({ type: 'file', path }),
    ).rejects.toMatchObject({
      name: 'IpamError',
    });
    expect((await readdir(dir.path)).sort()).toEqual(before);
    expect(await readFile(path, 'utf8')).toBe('root:x:0:0:root:/root:/bin/bash\n');
  });
});

describe('DatastoreOpener: onFileWarning', () => {
  it("tells an open file store's failed cleanups as lines", async () => {
    const path = join(dir.path, 'ds.json');
    await twoPools(path);
    const temp = `${path}.tmp-1234-abcdef`;
    await mkdir(temp);
    await writeFile(join(temp, 'x'), '');
    const lines: string[] = [];
    const opener = createDatastoreOpener(options({ onFileWarning: (l) => lines.push(l) }));
    const ds = await opener.open({ type: 'file', path });
    await ds.close();
    expect(lines).toEqual([
      expect.stringContaining(`could not remove the temp file of an unfinished write ${temp}`),
    ]);
  });
});
