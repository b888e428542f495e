import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createFileDatastore } from '@netledger/datastore-file';
import { createIpamClient } from '@netledger/ipam-core';
import { createTempDir } from '@netledger/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cniEnv, execPlugin, requirePlugin } from './exec-harness.js';

let dir: { path: string; remove: () => Promise<void> };
let dsPath: string;

const conf = (): string =>
  JSON.stringify({
    cniVersion: '1.1.0',
    name: 'backupnet',
    ipam: {
      type: 'netledger-ipam',
      nodename: 'backup-node',
      datastore_path: dsPath,
      ipam_lock_file: join(dir.path, 'ipam.lock'),
      log_level: 'error',
    },
  });

beforeEach(async () => {
  requirePlugin();
  dir = await createTempDir('netledger-cni-backup-');
  dsPath = join(dir.path, 'store', 'datastore.json');
  const ds = await createFileDatastore({ path: dsPath });
  const ipam = createIpamClient({ datastore: ds });
  await ipam.pools.create({ metadata: { name: 'v4' }, spec: { cidr: '10.78.0.0/24' } });
  await ipam.nodes.create({ metadata: { name: 'backup-node' } });
  await ds.close();
  // Three ADDs: `.prev` then holds every allocation but the last.
  for (const id of ['a1', 'a2', 'a3']) {
    expect(execPlugin(cniEnv('ADD', id), conf()).status).toBe(0);
  }
});
afterEach(async () => {
  await dir?.remove();
});

// The audit's reproduction: the store file deleted, its previous generation the only backup.
describe('netledger-ipam with the store file missing and its previous generation kept', () => {
  it('ADD refuses, naming netledgerctl datastore repair, and leaves the backup as it was', () => {
    rmSync(dsPath);
    const backup = readFileSync(`${dsPath}.prev`);
    for (const id of ['b1', 'b2']) {
      const add = execPlugin(cniEnv('ADD', id), conf());
      expect(add.status).toBe(1);
      expect(add.json).toMatchObject({
        msg: `${dsPath}: the datastore file is missing but its previous generation ${dsPath}.prev exists; refusing to start an empty store over it: run \`netledgerctl datastore repair\` to restore it`,
      });
      expect(add.stdout + add.stderr).not.toMatch(/\n\s+at .*:\d+:\d+/);
    }
    expect(readFileSync(`${dsPath}.prev`)).toEqual(backup);
    expect(existsSync(dsPath)).toBe(false);
  });
});
