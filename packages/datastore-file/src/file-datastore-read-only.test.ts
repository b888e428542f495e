import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createTempDir } from '@netledger/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileDatastore } from './file-datastore.js';

const key = { kind: 'IPAMHandle', handleId: 'h1' } as const;
const value = (n: number) => ({ handleId: 'h1', block: { '10.0.0.0/26': n }, deleted: false });

describe('file datastore opened read-only', () => {
  let dir: { path: string; remove: () => Promise<void> };
  let path: string;

  beforeEach(async () => {
    dir = await createTempDir('netledger-read-only-');
    path = join(dir.path, 'datastore.json');
  });
  afterEach(async () => {
    await dir.remove();
  });

  it('reads, sees later writes, refuses writes, and creates, sweeps or locks nothing', async () => {
    const writer = await createFileDatastore({ path });
    await writer.create({ key, value: value(1) });
    await writer.close();
    const names = (await readdir(dir.path)).sort();
    const bytes = await readFile(path);

    const ds = await createFileDatastore({ path, readOnly: true });
    try {
      expect((await ds.get(key)).value).toEqual(value(1));
      await expect(ds.update({ ...(await ds.get(key)), value: value(2) })).rejects.toMatchObject({
        code: 'Unavailable',
        message: `${path}: read-only or not writable location: the datastore was opened read-only`,
      });
      expect((await readdir(dir.path)).sort()).toEqual(names);
      expect(await readFile(path)).toEqual(bytes);

      const other = await createFileDatastore({ path });
      await other.update({ ...(await other.get(key)), value: value(3) });
      await other.close();
      expect((await ds.get(key)).value).toEqual(value(3));
    } finally {
      await ds.close();
    }
  });

  it('fails DoesNotExist where there is no store, creating no directory', async () => {
    const nested = join(dir.path, 'sub', 'datastore.json');
    await expect(createFileDatastore({ path: nested, readOnly: true })).rejects.toMatchObject({
      code: 'DoesNotExist',
      message: `${nested}: no datastore file`,
    });
    expect(await readdir(dir.path)).toEqual([]);
  });
});
