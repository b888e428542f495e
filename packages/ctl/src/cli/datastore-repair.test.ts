import {
  lstat,
  mkdir,
  readFile,
  readdir,
  readlink,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileDatastore } from '@netledger/datastore-file';
import { createIpamClient } from '@netledger/ipam-core';
import { createTempDir } from '@netledger/testkit';
import { formatLockHolder } from '@netledger/file-lock';
import { runCli } from '../test-support/run-cli.js';
import { assign, testClock } from '../test-support/seed.js';

let dir: { path: string; remove: () => Promise<void> };
let store: string;
/** A pool, then 10.0.0.1 for pod-a, then (the last write to the block) 10.0.0.2 for pod-b. */
beforeEach(async () => {
  dir = await createTempDir('netledgerctl-repair-');
  store = join(dir.path, 'ds.json');
  const datastore = await createFileDatastore({ path: store });
  const ipam = createIpamClient({ datastore, clock: testClock() });
  await ipam.pools.create({ metadata: { name: 'p' }, spec: { cidr: '10.0.0.0/24' } });
  await assign(ipam, 'n1', 'pod-a', ['10.0.0.1']);
  await assign(ipam, 'n1', 'pod-b', ['10.0.0.2']);
  await datastore.close();
});
afterEach(async () => {
  await dir.remove();
});

const run = (argv: string[]) => runCli(argv, { storePath: store });

/** Every entry of the test directory: its name and a file's bytes or a link's target. */
async function listing(): Promise<string[]> {
  const out: string[] = [];
  for (const name of (await readdir(dir.path)).sort()) {
    const p = join(dir.path, name);
    const what = (await lstat(p)).isSymbolicLink()
      ? `-> ${await readlink(p)}`
      : (await readFile(p)).toString('base64');
    out.push(`${name} ${what}`);
  }
  return out;
}

const PASSWD = 'root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n';

describe('netledgerctl datastore repair', () => {
  it('says a good store needs nothing, and changes nothing', async () => {
    const before = await readFile(store, 'utf8');
    const out = await run(['datastore', 'repair']);
    expect(out).toMatchObject({ code: 0, stderr: '' });
    expect(out.stdout).toBe(`${store}: the datastore checks in full; nothing to repair.\n`);
    expect(await readFile(store, 'utf8')).toBe(before);
  });

  it('a temp file it cannot remove is a warning on stderr; the repair is done (exit 0)', async () => {
    const text = await readFile(store, 'utf8');
    await writeFile(store, text.slice(0, text.length - 30));
    // Named as a temp file of an unfinished write, but a directory with a file in it.
    const temp = `${store}.tmp-1234-abcdef`;
    await mkdir(temp);
    await writeFile(join(temp, 'x'), '');
    const out = await run(['datastore', 'repair']);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('restored');
    expect(out.stderr).toMatch(
      new RegExp(
        `^Warning: could not remove the temp file of an unfinished write ${temp.replaceAll('.', '\\.')}: EISDIR[^\n]*\n$`,
      ),
    );
  });

  it('restores the previous generation of a truncated store, names the loss, runs ipam check', async () => {
    const text = await readFile(store, 'utf8');
    await writeFile(store, text.slice(0, text.length - 30));
    expect((await run(['ipam', 'check'])).code).toBe(1);
    const out = await run(['datastore', 'repair']);
    expect(out).toMatchObject({ code: 0, stderr: '' });
    expect(out.stdout).toContain(`${store}: corrupt datastore file: not valid JSON`);
    expect(out.stdout).toContain('Restored the previous generation:');
    expect(out.stdout).toMatch(/The damaged file is kept as .*ds\.json\.corrupt-\d{8}T\d{6}Z\./);
    // The last write (one transaction: pod-b's handle and the block recording 10.0.0.2) is lost.
    expect(out.stdout).toMatch(
      /Lost \(2 keys\):\n {2}\/calico\/ipam\/v2\/assignment\/ipv4\/block\/10\.0\.0\.0-26 {2}reverted: changed at revision 9; the value of revision 7 is restored\n {2}\/calico\/ipam\/v2\/handle\/pod-b {23}dropped: created after the previous generation\n/,
    );
    expect(out.stdout).toContain('may be handed out twice');
    // ipam check shows what it means: the handle and the block were lost together, so they agree.
    expect(out.stdout).toContain('ipam check on the repaired store:');
    expect(out.stdout).toContain(
      'Found 0 handles with no matching IPs (and 1 handles with matches).',
    );
    expect((await run(['ipam', 'check'])).code).toBe(0);
    const kept = (await readdir(dir.path)).filter((n) => n.includes('.corrupt-'));
    expect(kept).toHaveLength(1);
    expect(await readFile(join(dir.path, kept[0]!), 'utf8')).toBe(text.slice(0, text.length - 30));
  });

  it('--salvage --dry-run reports the salvage plan and changes nothing', async () => {
    await writeFile(store, 'garbage');
    const out = await run(['datastore', 'repair', '--salvage', '--dry-run']);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('Would do: Salvaged every record that checks: 0 objects');
    expect(out.stdout).toContain('missing: in the previous generation');
    expect(out.stdout).toContain('keys past the damage cannot be named');
    expect(await readFile(store, 'utf8')).toBe('garbage');
  });

  it('refuses while another process holds the store lock', async () => {
    await writeFile(store, 'garbage');
    await writeFile(`${store}.lock`, formatLockHolder({ pid: process.pid, nonce: 'other' }));
    const out = await run(['datastore', 'repair']);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(
      /^Error: .*refusing to repair while another process holds the store lock/,
    );
    expect(await readFile(store, 'utf8')).toBe('garbage');
  });

  it('refuses a file that is not a store (a copy of /etc/passwd): one line, exit 1, nothing changed', async () => {
    const passwd = join(dir.path, 'passwd');
    await writeFile(passwd, PASSWD);
    const before = await listing();
    for (const flags of [[], ['--salvage'], ['--previous'], ['--dry-run']]) {
      const out = await runCli(['datastore', 'repair', ...flags], { storePath: passwd });
      expect(out).toMatchObject({ code: 1, stdout: '' });
      expect(out.stderr).toBe(
        `Error: ${passwd}: not a netledger datastore file (it does not name the format "netledger-datastore/v1", holds no datastore record, and has no good previous generation ${passwd}.prev); refusing to repair it\n`,
      );
    }
    expect(await listing()).toEqual(before);
  });

  it('refuses a symbolic link, to a foreign file or to the store itself: exit 1, nothing changed', async () => {
    const passwd = join(dir.path, 'passwd');
    await writeFile(passwd, PASSWD);
    await symlink(passwd, join(dir.path, 'to-passwd'));
    await symlink(store, join(dir.path, 'to-store'));
    const before = await listing();
    for (const link of ['to-passwd', 'to-store']) {
      const path = join(dir.path, link);
      const out = await runCli(['datastore', 'repair'], { storePath: path });
      expect(out).toMatchObject({
        code: 1,
        stdout: '',
        stderr: `Error: ${path}: is a symbolic link, not a datastore file; refusing to repair it\n`,
      });
    }
    expect(await listing()).toEqual(before);
  });

  it('restores a missing store file from its previous generation; writers refuse until then', async () => {
    await rm(store);
    const backup = await readFile(`${store}.prev`);
    // A write would create an empty store, whose next write would replace the backup: refused.
    const assign = await run(['ipam', 'assign', '--node', 'n1', '--handle', 'pod-c']);
    expect(assign.code).toBe(1);
    expect(assign.stderr).toBe(
      `Error: ${store}: the datastore file is missing but its previous generation ${store}.prev exists; refusing to start an empty store over it: run \`netledgerctl datastore repair\` to restore it\n`,
    );
    expect(await readFile(`${store}.prev`)).toEqual(backup);
    expect(await readdir(dir.path)).not.toContain('ds.json');

    const out = await run(['datastore', 'repair']);
    expect(out).toMatchObject({ code: 0, stderr: '' });
    expect(out.stdout).toContain(`${store}: the datastore file is missing\n`);
    expect(out.stdout).toContain('Restored the previous generation: 5 objects');
    expect(out.stdout).toContain('The store file was missing: what its last write changed');
    expect(out.stdout).toContain('ipam check on the repaired store:');
    // The previous generation holds pod-a's address; pod-b's, the last write, is gone.
    expect((await run(['ipam', 'show', '--ip', '10.0.0.1'])).stdout).toContain('pod-a');
    expect((await run(['ipam', 'show', '--ip', '10.0.0.2'])).stdout).not.toContain('pod-b');
    expect((await run(['ipam', 'check'])).code).toBe(0);
    expect(await readFile(`${store}.prev`)).toEqual(backup);
  });

  it('a flipped bit that still decodes: commands refuse the store, repair restores .prev', async () => {
    const text = await readFile(store, 'utf8');
    // pod-b's handle counts 1 address; 1 -> 3 (0x31 -> 0x33) still decodes.
    const at = text.indexOf('\\"10.0.0.0/26\\":1', text.indexOf('"/calico/ipam/v2/handle/pod-b"'));
    expect(at).toBeGreaterThan(0);
    const digit = at + '\\"10.0.0.0/26\\":'.length;
    await writeFile(store, `${text.slice(0, digit)}3${text.slice(digit + 1)}`);
    const show = await run(['ipam', 'show']);
    expect(show).toMatchObject({
      code: 1,
      stderr: `Error: ${store}: corrupt datastore file: its seal does not match its contents (damaged on disk, or edited by hand), although every value decodes; run \`netledgerctl datastore repair\`\n`,
    });
    const out = await run(['datastore', 'repair']);
    expect(out).toMatchObject({ code: 0, stderr: '' });
    expect(out.stdout).toContain('its seal does not match its contents');
    expect(out.stdout).toContain('Restored the previous generation:');
    expect((await run(['ipam', 'show'])).code).toBe(0);
    expect((await run(['datastore', 'repair'])).stdout).toContain('nothing to repair');
  });

  it("repairs through the app's opener (CtlIo.repairDatastore), with the selected store and flags", async () => {
    const calls: unknown[] = [];
    const out = await runCli(['datastore', 'repair', '--previous', '--dry-run'], {
      storePath: store,
      io: {
        repairDatastore: async (config, options) => {
          calls.push([config, options]);
          return { path: store, action: 'none', dryRun: true };
        },
      },
    });
    expect(out).toMatchObject({ code: 0, stderr: '' });
    expect(out.stdout).toBe(`${store}: the datastore checks in full; nothing to repair.\n`);
    expect(calls).toEqual([
      [
        { type: 'file', path: store },
        { mode: 'previous', dryRun: true },
      ],
    ]);
  });

  it('is a usage error with both modes, or on a store that is not a file', async () => {
    expect((await run(['datastore', 'repair', '--previous', '--salvage'])).code).toBe(2);
    const etcd = await runCli(['datastore', 'repair'], {
      env: { DATASTORE_TYPE: 'etcdv3', ETCD_ENDPOINTS: 'http://127.0.0.1:1' },
    });
    expect(etcd).toMatchObject({ code: 2 });
    expect(etcd.stderr).toContain('works on the file store; this one is etcdv3');
  });
});
