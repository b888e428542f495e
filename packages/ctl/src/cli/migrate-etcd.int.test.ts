import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEtcdDatastore } from '@netledger/datastore-etcd';
import { createFileDatastore } from '@netledger/datastore-file';
import { createIpamClient } from '@netledger/ipam-core';
import { createTempDir, startEtcd } from '@netledger/testkit';
import type { EtcdFixture } from '@netledger/testkit';
import { dumpStore } from '../test-support/dump-store.js';
import { runCli } from '../test-support/run-cli.js';
import { testClock } from '../test-support/seed.js';
import { seedMigration } from '../test-support/seed-migration.js';

let etcd: EtcdFixture;
let dir: { path: string; remove: () => Promise<void> };
beforeAll(async () => {
  etcd = await startEtcd();
  dir = await createTempDir('netledgerctl-migrate-');
});
afterAll(async () => {
  await etcd?.stop();
  await dir?.remove();
});

describe('datastore migrate: file store -> etcd', () => {
  it('exports from the file store and imports into etcd with a node rename', async () => {
    const store = join(dir.path, 'ds.json');
    const file = await createFileDatastore({ path: store });
    await seedMigration(createIpamClient({ datastore: file, clock: testClock() }), file);
    const source = await dumpStore(file);
    await file.close();

    const fileEnv = { storePath: store };
    expect((await runCli(['datastore', 'migrate', 'lock'], fileEnv)).code).toBe(0);
    const exported = await runCli(
      ['datastore', 'migrate', 'export', '--rename-node', 'old-1=new-1'],
      fileEnv,
    );
    expect(exported).toMatchObject({ code: 0, stderr: '' });
    const exportFile = join(dir.path, 'export.txt');
    await writeFile(exportFile, exported.stdout);

    const etcdEnv = { env: { DATASTORE_TYPE: 'etcdv3', ETCD_ENDPOINTS: etcd.endpoints.join(',') } };
    const imported = await runCli(['datastore', 'migrate', 'import', '-f', exportFile], etcdEnv);
    expect(imported).toMatchObject({ code: 0, stderr: '' });
    expect(
      (await runCli(['datastore', 'migrate', 'import', '-f', exportFile], etcdEnv)).stderr,
    ).toMatch(/^Error: the destination datastore is not empty/);
    expect((await runCli(['datastore', 'migrate', 'unlock'], etcdEnv)).code).toBe(0);

    const ds = createEtcdDatastore({ endpoints: etcd.endpoints });
    try {
      const target = await dumpStore(ds);
      const expected: Record<string, string> = {};
      for (const [k, v] of Object.entries(source)) {
        expected[
          k.replace(/\/old-1(\/|$)/, '/new-1$1').replace(/tunnel-addr-old-1$/, 'tunnel-addr-new-1')
        ] = v
          .replaceAll('"host:old-1"', '"host:new-1"')
          .replaceAll('"node":"old-1"', '"node":"new-1"')
          .replaceAll('tunnel-addr-old-1', 'tunnel-addr-new-1')
          .replaceAll('"name":"old-1"', '"name":"new-1"');
      }
      expect(target).toEqual(expected);
      const ipam = createIpamClient({ datastore: ds });
      expect(await ipam.ipsByHandle('wireguard-v6-tunnel-addr-new-1')).toHaveLength(1);
      const show = await runCli(['ipam', 'show', '--show-blocks'], etcdEnv);
      expect(show.stdout).toContain('| IP Pool  | 10.10.0.0/16');
      const check = await runCli(['ipam', 'check'], etcdEnv);
      expect(check.stdout).toContain('Found 0 invalid IPAMBlocks.');
    } finally {
      await ds.close();
    }
  });
});
