import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileDatastore } from '@netledger/datastore-file';
import { createIpamClient } from '@netledger/ipam-core';
import { createTempDir } from '@netledger/testkit';
import { runCli } from '../test-support/run-cli.js';
import { testClock } from '../test-support/seed.js';
import { seedProblems } from '../test-support/seed-problems.js';

let dir: { path: string; remove: () => Promise<void> };
let store: string;
beforeEach(async () => {
  dir = await createTempDir('netledgerctl-check-');
  store = join(dir.path, 'ds.json');
  const datastore = await createFileDatastore({ path: store });
  await seedProblems(createIpamClient({ datastore, clock: testClock() }), datastore);
  await datastore.close();
});
afterEach(async () => {
  await dir.remove();
});

const run = (argv: string[]) => runCli(argv, { storePath: store });

describe('ipam check and release --from-report (file store)', () => {
  it('checks, reports, and releases exactly the leaks', async () => {
    const report = join(dir.path, 'report.json');
    expect((await run(['datastore', 'migrate', 'lock'])).stdout).toBe('Datastore locked.\n');
    const check = await run(['ipam', 'check', '--show-problem-ips', '-o', report]);
    expect(check.code).toBe(0);
    expect(check.stdout).toContain('Check complete; found 5 problems.\n');
    const json = await readFile(report, 'utf8');
    expect(json).toMatch(/"sequenceNumber": \d{19},/);
    const rel = await run(['ipam', 'release', '--from-report', report]);
    expect(rel).toMatchObject({ code: 0, stderr: '' });
    expect(rel.stdout).toContain('Released 1 IPs successfully\n');
    expect(rel.stdout).toContain('Released 1 handles; 0 skipped; 0 errors.\n');
    expect((await run(['datastore', 'migrate', 'unlock'])).stdout).toBe('Datastore unlocked.\n');
    const after = await run(['ipam', 'check']);
    expect(after.stdout).toContain('Check complete; found 3 problems.\n');
    expect((await run(['ipam', 'show', '--ip', '10.0.0.3'])).stderr).toBe(
      'Error: address 10.0.0.3 is in cooldown\n',
    );
  });

  it('refuses a corrupt or unsafe report with one line and changes nothing', async () => {
    const report = join(dir.path, 'report.json');
    await run(['ipam', 'check', '-o', report]);
    const before = await readFile(store, 'utf8');
    const corrupt = join(dir.path, 'corrupt.json');
    for (const text of ['{"version": "v0.1.0", "allocations": ', '[]', '{"version": 1}']) {
      await writeFile(corrupt, text);
      const r = await run(['ipam', 'release', '--from-report', corrupt]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^Error: .*corrupt\.json: not a valid ipam check report: [^\n]+\n$/);
    }
    const unlocked = await run(['ipam', 'release', '--from-report', report]);
    expect(unlocked).toMatchObject({
      code: 1,
      stderr:
        'Error: data store is not locked. Either lock the data store, or re-run with --force\n',
    });
    expect(
      (await run(['ipam', 'release', '--from-report', join(dir.path, 'none.json')])).stderr,
    ).toMatch(/^Error: cannot read .*none\.json: ENOENT\n$/);
    expect(await readFile(store, 'utf8')).toBe(before);
  });

  it('releases one address with --ip', async () => {
    expect(await run(['ipam', 'release', '--ip', '10.0.0.2'])).toMatchObject({
      code: 0,
      stdout: 'Successfully released IP address 10.0.0.2\n',
    });
    expect(await run(['ipam', 'release', '--ip', '10.0.0.9'])).toMatchObject({
      code: 1,
      stderr: 'Error: IP address 10.0.0.9 is not assigned\n',
    });
  });
});
