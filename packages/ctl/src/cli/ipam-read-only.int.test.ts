import { execFileSync } from 'node:child_process';
import { chmod, mkdir, readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createFileDatastore } from '@netledger/datastore-file';
import { createIpamClient } from '@netledger/ipam-core';
import { createTempDir } from '@netledger/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../test-support/run-cli.js';
import { assign, testClock } from '../test-support/seed.js';

let dir: { path: string; remove: () => Promise<void> };
let storeDir: string;
let store: string;
let immutable = false;

beforeEach(async () => {
  dir = await createTempDir('netledgerctl-read-only-');
  storeDir = join(dir.path, 'ro');
  store = join(storeDir, 'ds.json');
  await mkdir(storeDir);
  const datastore = await createFileDatastore({ path: store });
  const ipam = createIpamClient({ datastore, clock: testClock() });
  await ipam.pools.create({ metadata: { name: 'p' }, spec: { cidr: '10.0.0.0/24' } });
  await assign(ipam, 'n1', 'pod-a', ['10.0.0.1'], { namespace: 'default', pod: 'pod-a' });
  await datastore.close();
  // A read-only store: the file 0444 in a directory that no one, root included, can change.
  await chmod(store, 0o444);
  try {
    execFileSync('chattr', ['+i', storeDir], { stdio: 'pipe' });
  } catch (e) {
    // Never skipped: without chattr (or as non-root) this fails and says what is missing.
    throw new Error(
      'chattr +i failed: run as root with e2fsprogs installed (apt-get install -y e2fsprogs)',
      { cause: e },
    );
  }
  immutable = true;
});
afterEach(async () => {
  if (immutable) execFileSync('chattr', ['-i', storeDir]);
  immutable = false;
  await dir.remove();
});

const run = (argv: string[]) => runCli(argv, { storePath: store });

// An integration test: it needs root and e2fsprogs (chattr), so `pnpm test:fast` leaves it out.
describe('netledgerctl on a read-only file store', () => {
  it('ipam show and ipam check work, and change nothing', async () => {
    const names = (await readdir(storeDir)).sort();
    const bytes = await readFile(store);

    const show = await run(['ipam', 'show']);
    expect(show).toMatchObject({ code: 0, stderr: '' });
    expect(show.stdout).toMatch(/\| IP Pool +\| 10\.0\.0\.0\/24 \| +256 \| +1 \(0%\) \|/);
    const blocks = await run(['ipam', 'show', '--show-blocks']);
    expect(blocks).toMatchObject({ code: 0, stderr: '' });
    expect(blocks.stdout).toContain('10.0.0.0/26');
    expect((await run(['ipam', 'show', '--ip', '10.0.0.1'])).stdout).toContain('pod-a');

    const check = await run(['ipam', 'check', '--show-problem-ips']);
    expect(check).toMatchObject({ code: 0, stderr: '' });
    expect(check.stdout).toContain('Found 1 IPAM blocks.');
    expect(check.stdout).toContain('Check complete; found 0 problems.');

    expect((await readdir(storeDir)).sort()).toEqual(names);
    expect(await readFile(store)).toEqual(bytes);
  });

  it('a command that writes still fails, naming the read-only location', async () => {
    const out = await run(['ipam', 'assign', '--node', 'n1', '--handle', 'pod-b']);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(new RegExp(`^Error: ${store}: read-only or not writable location`));
  });
});
