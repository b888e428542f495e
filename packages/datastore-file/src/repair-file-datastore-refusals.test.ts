import { execFileSync } from 'node:child_process';
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
import { IpamError } from '@netledger/ipam-core';
import { createTempDir } from '@netledger/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileDatastore } from './file-datastore.js';
import { repairFileDatastore } from './repair-file-datastore.js';

const PASSWD = [
  'root:x:0:0:root:/root:/bin/bash',
  'daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin',
  'sshd:x:105:65534::/run/sshd:/usr/sbin/nologin',
  '',
].join('\n');
const handleKey = (id: string) => ({ kind: 'IPAMHandle', handleId: id }) as const;
const handleValue = (id: string, n: number) => ({
  handleId: id,
  block: { '10.0.0.0/26': n },
  deleted: false,
});

async function failure(p: Promise<unknown>): Promise<IpamError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(IpamError);
  return e as IpamError;
}

describe('repairFileDatastore refuses what is not a store', () => {
  let dir: { path: string; remove: () => Promise<void> };
  let path: string;

  /** Every entry of the directory: name, type, and a file's bytes or a link's target. */
  async function listing(): Promise<string[]> {
    const out: string[] = [];
    for (const name of (await readdir(dir.path)).sort()) {
      const p = join(dir.path, name);
      const s = await lstat(p);
      const what = s.isSymbolicLink()
        ? `-> ${await readlink(p)}`
        : s.isFile()
          ? (await readFile(p)).toString('base64')
          : s.isDirectory()
            ? 'dir'
            : 'other';
      out.push(`${name} ${(s.mode & 0o7777).toString(8)} ${what}`);
    }
    return out;
  }

  /** h1 and h2 created, then h2 updated: `.prev` holds h2 at 1. */
  async function seed(at = path): Promise<void> {
    const ds = await createFileDatastore({ path: at });
    await ds.create({ key: handleKey('h1'), value: handleValue('h1', 1) });
    await ds.create({ key: handleKey('h2'), value: handleValue('h2', 1) });
    const h2 = await ds.get(handleKey('h2'));
    await ds.update({ ...h2, value: handleValue('h2', 2) });
    await ds.close();
  }

  beforeEach(async () => {
    dir = await createTempDir('netledger-repair-refuse-');
    path = join(dir.path, 'datastore.json');
  });
  afterEach(async () => {
    await dir.remove();
  });

  it.each(['auto', 'previous', 'salvage'] as const)(
    'refuses a file that is not a store (a copy of /etc/passwd), mode %s: InvalidArgument, nothing changed',
    async (mode) => {
      const passwd = join(dir.path, 'passwd');
      await writeFile(passwd, PASSWD, { mode: 0o644 });
      const before = await listing();
      for (const dryRun of [true, false]) {
        const e = await failure(repairFileDatastore({ path: passwd, mode, dryRun }));
        expect(e.code).toBe('InvalidArgument');
        expect(e.message).toBe(
          `${passwd}: not a netledger datastore file (it does not name the format "netledger-datastore/v1", holds no datastore record, and has no good previous generation ${passwd}.prev); refusing to repair it`,
        );
      }
      // Byte for byte, and nothing beside it: no lock, no kept-aside copy.
      expect(await listing()).toEqual(before);
    },
  );

  it.each<{ what: string; make: (p: string) => Promise<void>; says: string }>([
    {
      what: 'a symbolic link to a file that is not a store',
      make: async (p) => {
        await writeFile(join(dir.path, 'passwd'), PASSWD);
        await symlink(join(dir.path, 'passwd'), p);
      },
      says: 'is a symbolic link, not a datastore file; refusing to repair it',
    },
    {
      what: 'a symbolic link to a damaged store',
      make: async (p) => {
        await seed(join(dir.path, 'real', 'datastore.json'));
        await writeFile(join(dir.path, 'real', 'datastore.json'), 'garbage');
        await symlink(join(dir.path, 'real', 'datastore.json'), p);
      },
      says: 'is a symbolic link, not a datastore file; refusing to repair it',
    },
    {
      what: 'a dangling symbolic link',
      make: (p) => symlink(join(dir.path, 'nowhere'), p),
      says: 'is a symbolic link, not a datastore file; refusing to repair it',
    },
    {
      what: 'a directory',
      make: async (p) => {
        await mkdir(p);
      },
      says: 'is a directory, not a datastore file; refusing to repair it',
    },
    {
      what: 'a FIFO',
      make: async (p) => {
        execFileSync('mkfifo', [p]);
      },
      says: 'is not a regular file; refusing to repair it',
    },
  ])('refuses $what: InvalidArgument naming the path, nothing changed', async ({ make, says }) => {
    await make(path);
    const before = await listing();
    const e = await failure(repairFileDatastore({ path }));
    expect(e).toMatchObject({ code: 'InvalidArgument', message: `${path}: ${says}` });
    expect(await listing()).toEqual(before);
  });

  it('refuses a store whose previous generation is a symbolic link, changing nothing', async () => {
    await seed();
    await writeFile(path, 'garbage');
    await writeFile(join(dir.path, 'passwd'), PASSWD);
    await rm(`${path}.prev`);
    await symlink(join(dir.path, 'passwd'), `${path}.prev`);
    const before = await listing();
    const e = await failure(repairFileDatastore({ path }));
    expect(e).toMatchObject({
      code: 'InvalidArgument',
      message: `${path}.prev: is a symbolic link, not a datastore file; refusing to repair ${path} from it`,
    });
    expect(await listing()).toEqual(before);
  });

  it('repairs an emptied store file when its previous generation checks (a crash can leave one)', async () => {
    await seed();
    await writeFile(path, '');
    const report = await repairFileDatastore({ path });
    expect(report).toMatchObject({ action: 'restored-previous', objects: 2 });
    const ds = await createFileDatastore({ path });
    expect((await ds.get(handleKey('h2'))).value).toEqual(handleValue('h2', 1));
    await ds.close();
  });
});

describe('repairFileDatastore with the store file missing', () => {
  let dir: { path: string; remove: () => Promise<void> };
  let path: string;

  beforeEach(async () => {
    dir = await createTempDir('netledger-repair-missing-');
    path = join(dir.path, 'datastore.json');
    const ds = await createFileDatastore({ path });
    await ds.create({ key: handleKey('h1'), value: handleValue('h1', 1) });
    await ds.create({ key: handleKey('h2'), value: handleValue('h2', 1) });
    await ds.close();
  });
  afterEach(async () => {
    await dir.remove();
  });

  it('restores the previous generation, above every revision handed out; keeps .prev', async () => {
    const ds = await createFileDatastore({ path });
    const stale = await ds.get(handleKey('h2')); // revision 2, lost with the file
    await ds.close();
    await rm(path);
    const prevBytes = await readFile(`${path}.prev`);

    const dry = await repairFileDatastore({ path, dryRun: true });
    expect(dry).toMatchObject({ action: 'restored-previous', dryRun: true, missing: true });
    expect(await readdir(dir.path)).not.toContain('datastore.json');

    const report = await repairFileDatastore({ path });
    expect(report).toMatchObject({
      action: 'restored-previous',
      objects: 1,
      missing: true,
      lost: [],
      problem: `${path}: the datastore file is missing`,
    });
    expect(report.keptAs).toBeUndefined();
    expect(report.revision).toBeGreaterThan(Number(stale.revision));
    expect(await readFile(`${path}.prev`)).toEqual(prevBytes);
    const after = await createFileDatastore({ path });
    try {
      expect((await after.list({ kind: 'IPAMHandle' })).items.map((kv) => kv.key.handleId)).toEqual(
        ['h1'],
      );
      const e = await failure(after.update({ ...stale, value: handleValue('h2', 5) }));
      expect(e.code).toBe('DoesNotExist');
    } finally {
      await after.close();
    }
  });

  it('--salvage has nothing to salvage: DoesNotExist, nothing created', async () => {
    await rm(path);
    const e = await failure(repairFileDatastore({ path, mode: 'salvage' }));
    expect(e.code).toBe('DoesNotExist');
    expect(e.message).toContain('no datastore file to salvage');
    expect((await readdir(dir.path)).sort()).toEqual(['datastore.json.prev']);
  });

  it('refuses a previous generation that does not check: CorruptValue, nothing created', async () => {
    await rm(path);
    await writeFile(`${path}.prev`, '{"format":"netledger-datastore/v1","storeId":');
    const e = await failure(repairFileDatastore({ path }));
    expect(e.code).toBe('CorruptValue');
    expect(e.message).toContain('cannot restore the previous generation');
    expect((await readdir(dir.path)).sort()).toEqual(['datastore.json.prev']);
  });
});
