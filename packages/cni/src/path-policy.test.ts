import { mkdir, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { createTempDir } from '@netledger/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CniError } from './cni-error.js';
import { parseNetConf } from './net-conf.js';
import { enforcePathPolicy } from './path-policy.js';
import { baseConf, createHarness } from './test-plugin-harness.js';

let dir: { path: string; remove: () => Promise<void> };
let root: string;
beforeEach(async () => {
  dir = await createTempDir('netledger-paths-');
  root = join(dir.path, 'root');
  await mkdir(root);
});
afterEach(async () => {
  await dir.remove();
});

/** Runs the policy on a netconf whose ipam holds `ipam`, with `NETLEDGER_PATH_ROOTS=root`. */
async function check(
  ipam: Record<string, unknown>,
  env: Record<string, string> = { NETLEDGER_PATH_ROOTS: root },
): Promise<CniError | undefined> {
  const stdin = JSON.stringify(baseConf({ ipam: { ipam_lock_file: join(root, 'l'), ...ipam } }));
  return enforcePathPolicy({ ipam: parseNetConf(stdin, env).ipam, stdin, env }).then(
    () => undefined,
    (e: unknown) => {
      expect(e).toBeInstanceOf(CniError);
      return e as CniError;
    },
  );
}

describe('enforcePathPolicy', () => {
  it('allows a store and a lock under a root, existing or not', async () => {
    expect(await check({ datastore_path: join(root, 'a', 'b', 'ds.json') })).toBeUndefined();
    expect(await check({ datastore_path: join(root, 'ds.json') })).toBeUndefined();
  });

  it('allows the system defaults without NETLEDGER_PATH_ROOTS', async () => {
    const e = await check(
      {
        datastore_path: '/var/lib/netledger/datastore.json',
        ipam_lock_file: '/run/netledger/ipam.lock',
      },
      {},
    );
    expect(e).toBeUndefined();
  });

  it.each([
    ['outside every root', () => '/etc/netledger/datastore.json', 'is outside the allowed roots'],
    ['relative', () => 'var/lib/netledger/ds.json', 'is not an absolute normalized path'],
    ['with ..', () => join(root, 'a') + '/../ds.json', 'is not an absolute normalized path'],
    ['with ..  escaping', () => `${root}/../../etc/ds.json`, 'is not an absolute normalized path'],
    ['with //', () => `${root}//ds.json`, 'is not an absolute normalized path'],
    ['the root itself', () => root, 'is outside the allowed roots'],
    ['a sibling sharing a prefix', () => `${root}x/ds.json`, 'is outside the allowed roots'],
  ])('refuses a datastore path %s: InvalidNetworkConfig (7)', async (_, path, says) => {
    const e = await check({ datastore_path: path() });
    expect(e).toMatchObject({ code: 7 });
    expect(e!.message).toContain(`datastore_path ${JSON.stringify(path())}`);
    expect(e!.message).toContain(says);
  });

  it('refuses a lock path outside the roots, naming ipam_lock_file', async () => {
    const e = await check({ ipam_lock_file: '/etc/cron.d/netledger' });
    expect(e).toMatchObject({ code: 7 });
    expect(e!.message).toMatch(/^ipam_lock_file "\/etc\/cron\.d\/netledger" is outside/);
  });

  it('refuses a path through a symlink that escapes the root', async () => {
    const outside = join(dir.path, 'outside');
    await mkdir(outside);
    await symlink(outside, join(root, 'link'));
    const e = await check({ datastore_path: join(root, 'link', 'ds.json') });
    expect(e).toMatchObject({ code: 7 });
    expect(e!.message).toContain(`resolves to ${join(outside, 'ds.json')}`);
  });

  it('refuses a dangling symlink a create would follow', async () => {
    await symlink('/etc/netledger-planted', join(root, 'ds.json'));
    const e = await check({ datastore_path: join(root, 'ds.json') });
    expect(e).toMatchObject({ code: 7 });
    expect(e!.message).toContain('is a symlink to nowhere');
  });

  it('allows a symlink that stays inside the root', async () => {
    await mkdir(join(root, 'real'));
    await symlink(join(root, 'real'), join(root, 'alias'));
    expect(await check({ datastore_path: join(root, 'alias', 'ds.json') })).toBeUndefined();
  });

  it('checks the disk on every call: a symlink swapped since the last one is caught', async () => {
    const outside = join(dir.path, 'outside');
    await mkdir(outside);
    await mkdir(join(root, 'real'));
    await symlink(join(root, 'real'), join(root, 'alias'));
    const conf = { datastore_path: join(root, 'alias', 'ds.json') };
    expect(await check(conf)).toBeUndefined();
    await rm(join(root, 'alias'));
    await symlink(outside, join(root, 'alias'));
    expect(await check(conf)).toMatchObject({ code: 7 });
  });

  it('checks a root that is itself a symlink by where it leads', async () => {
    const realRoot = join(dir.path, 'real-root');
    await mkdir(realRoot);
    const linkRoot = join(dir.path, 'link-root');
    await symlink(realRoot, linkRoot);
    const env = { NETLEDGER_PATH_ROOTS: linkRoot };
    const inside = join(linkRoot, 'ds.json');
    expect(await check({ datastore_path: inside, ipam_lock_file: join(linkRoot, 'l') }, env)).toBe(
      undefined,
    );
    await symlink(join(dir.path, 'elsewhere'), join(realRoot, 'away'));
    await mkdir(join(dir.path, 'elsewhere'));
    const e = await check(
      { datastore_path: join(linkRoot, 'away', 'ds.json'), ipam_lock_file: join(linkRoot, 'l') },
      env,
    );
    expect(e).toMatchObject({ code: 7 });
    expect(e!.message).toContain('outside its root');
  });

  it('ipam.path_roots narrows the roots, and cannot widen them', async () => {
    const narrow = join(root, 'net1');
    expect(
      await check({
        path_roots: [narrow],
        datastore_path: join(narrow, 'ds.json'),
        ipam_lock_file: join(narrow, 'l'),
      }),
    ).toBeUndefined();
    const e = await check({ path_roots: [narrow], datastore_path: join(root, 'ds.json') });
    expect(e).toMatchObject({ code: 7 });
    const wide = await check({ path_roots: ['/etc'] });
    expect(wide).toMatchObject({ code: 7 });
    expect(wide!.message).toContain('path_roots: "/etc" is not under an allowed root');
    expect(await check({ path_roots: '/etc' })).toMatchObject({ code: 6 });
  });

  it('refuses a NETLEDGER_PATH_ROOTS that is not absolute: InvalidEnvironmentVariables (4)', async () => {
    const e = await check({}, { NETLEDGER_PATH_ROOTS: 'relative/dir' });
    expect(e).toMatchObject({ code: 4 });
  });

  it('runCniPlugin refuses before opening the store, and the store is unchanged', async () => {
    const h = await createHarness();
    const before = await h.ds.list({ kind: 'IPAMBlock' });
    const out = await h.run('ADD', baseConf({ ipam: { datastore_path: '/etc/passwd' } }));
    expect(out.exitCode).toBe(1);
    expect(out.json).toMatchObject({ code: 7, msg: expect.stringContaining('datastore_path') });
    expect(h.opened).toEqual([]);
    expect(await h.ds.list({ kind: 'IPAMBlock' })).toEqual(before);
  });
});
