import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createFileDatastore } from '@netledger/datastore-file';
import { createIpamClient } from '@netledger/ipam-core';
import { createTempDir } from '@netledger/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  LAUNCHER,
  PLUGIN,
  SNAPSHOT_BLOB,
  SNAPSHOT_FLAGS,
  cniEnv,
  execPlugin,
  requirePlugin,
} from './exec-harness.js';

let dir: { path: string; remove: () => Promise<void> };
let dsPath: string;

beforeAll(async () => {
  requirePlugin();
  dir = await createTempDir('netledger-cni-snapshot-');
  dsPath = join(dir.path, 'datastore.json');
  const ds = await createFileDatastore({ path: dsPath });
  await createIpamClient({ datastore: ds }).pools.create({
    metadata: { name: 'v4' },
    spec: { cidr: '10.78.0.0/24' },
  });
  await ds.close();
});
afterAll(async () => {
  await dir?.remove();
});

const conf = (): string =>
  JSON.stringify({
    cniVersion: '1.1.0',
    name: 'snapnet',
    ipam: {
      type: 'netledger-ipam',
      nodename: 'snap-node',
      datastore_path: dsPath,
      ipam_lock_file: join(dir.path, 'ipam.lock'),
      log_level: 'error',
    },
  });

/** The launcher under `sh -x`: its trace (stderr) shows how it started Node. */
function traceLauncher(env: Record<string, string>): { status: number | null; exec: string } {
  const r = spawnSync('/bin/sh', ['-x', LAUNCHER], { env, input: '', encoding: 'utf8' });
  const started = r.stderr.split('\n').filter((l) => l.startsWith(`+ ${process.execPath} `));
  return { status: r.status, exec: started.join('\n') };
}

describe('bin/netledger-ipam and its start-up snapshot', () => {
  it('starts Node from the snapshot', () => {
    const r = traceLauncher(cniEnv('VERSION'));
    expect(r.status).toBe(0);
    expect(r.exec).toBe(
      `+ ${process.execPath} ${SNAPSHOT_FLAGS.join(' ')} --snapshot-blob ${SNAPSHOT_BLOB} ${LAUNCHER}`,
    );
  });

  it('is the Perl agent client, which runs that launcher for Node (VERSION: no agent asked)', () => {
    expect(readFileSync(PLUGIN, 'utf8')).toMatch(/^#!\/\S+\/perl\n/);
    const r = spawnSync(PLUGIN, [], { env: cniEnv('VERSION'), input: '', encoding: 'utf8' });
    expect(r).toMatchObject({ status: 0, stderr: '' });
    expect(JSON.parse(r.stdout)).toMatchObject({ cniVersion: '1.1.0' });
  });

  it('keeps the blob, whose hash seed is fixed at build time, readable by its owner only', () => {
    expect(statSync(SNAPSHOT_BLOB).mode & 0o777).toBe(0o600);
  });

  it('runs the plain bundle when NODE_OPTIONS could make the snapshot unloadable', () => {
    const env = { ...cniEnv('VERSION'), NODE_OPTIONS: '--max-old-space-size=200' };
    const r = traceLauncher(env);
    expect(r.status).toBe(0);
    expect(r.exec).not.toContain('--snapshot-blob');
    expect(execPlugin(env, '')).toMatchObject({ status: 0, json: { cniVersion: '1.1.0' } });
  });

  it('draws fresh randomness in every invocation (nothing cached in the snapshot replays)', async () => {
    for (const id of ['r1', 'r2', 'r3']) {
      expect(execPlugin(cniEnv('ADD', id), conf())).toMatchObject({ status: 0 });
    }
    const doc = JSON.parse(readFileSync(dsPath, 'utf8')) as {
      entries: Record<string, { uid: string }>;
    };
    const uids = Object.values(doc.entries).map((e) => e.uid);
    expect(uids.length).toBeGreaterThanOrEqual(5); // pool, node, block, three handles
    expect(new Set(uids).size).toBe(uids.length);
  });

  it('reports an unexpected failure as CNI error JSON, as the plain bundle does', () => {
    const r = execPlugin(cniEnv('ADD', 'bad'), '{"cniVersion": "1.1.0", "name": "x", "ipam": 1}');
    expect(r.status).toBe(1);
    expect(r.json).toMatchObject({ code: expect.any(Number), msg: expect.any(String) });
  });
});
