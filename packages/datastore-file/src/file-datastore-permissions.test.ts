import { readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createTempDir } from '@netledger/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileDatastore } from './file-datastore.js';

const key = { kind: 'IPAMHandle', handleId: 'h1' } as const;
const value = { handleId: 'h1', block: {}, deleted: false };
const modeOf = async (p: string): Promise<number> => (await stat(p)).mode & 0o777;

describe('file datastore: what it writes is the owner only', () => {
  let dir: { path: string; remove: () => Promise<void> };

  beforeEach(async () => {
    dir = await createTempDir('netledger-perm-');
  });
  afterEach(async () => {
    await dir.remove();
  });

  it('creates its directories 0700 and the store, .prev and lock files 0600, whatever the umask', async () => {
    const old = process.umask(0);
    try {
      const path = join(dir.path, 'state', 'netledger', 'datastore.json');
      const ds = await createFileDatastore({ path });
      await ds.create({ key, value });
      await ds.apply({ key, value });
      expect(await modeOf(join(dir.path, 'state'))).toBe(0o700);
      expect(await modeOf(join(dir.path, 'state', 'netledger'))).toBe(0o700);
      const names = await readdir(join(dir.path, 'state', 'netledger'));
      // The store, its previous generation and this instance's prepared lock file.
      expect(names.sort()).toEqual([
        'datastore.json',
        expect.stringMatching(/^datastore\.json\.lock-\d+-[0-9a-f]+$/),
        'datastore.json.prev',
      ]);
      for (const n of names)
        expect([n, await modeOf(join(dir.path, 'state', 'netledger', n))]).toEqual([n, 0o600]);
      await ds.close();
    } finally {
      process.umask(old);
    }
  });

  it('a store file written 0644 by an older version is 0600 after the next write', async () => {
    const path = join(dir.path, 'datastore.json');
    const ds = await createFileDatastore({ path });
    await ds.close();
    const { chmod } = await import('node:fs/promises');
    await chmod(path, 0o644);
    const again = await createFileDatastore({ path });
    await again.create({ key, value });
    await again.close();
    expect(await modeOf(path)).toBe(0o600);
  });

  it('keeps the last good generation in .prev, and a refused write over a damaged file leaves it', async () => {
    const path = join(dir.path, 'datastore.json');
    const ds = await createFileDatastore({ path });
    await ds.create({ key, value });
    const good = await readFile(path, 'utf8');
    await ds.apply({ key, value: { ...value, block: { '10.0.0.0/26': 1 } } });
    expect(await readFile(`${path}.prev`, 'utf8')).toBe(good);
    const prev = await readFile(`${path}.prev`, 'utf8');
    await writeFile(path, 'damaged');
    await expect(ds.apply({ key, value })).rejects.toMatchObject({ code: 'CorruptValue' });
    await ds.close();
    expect(await readFile(`${path}.prev`, 'utf8')).toBe(prev);
    expect(await readFile(path, 'utf8')).toBe('damaged');
  });
});
