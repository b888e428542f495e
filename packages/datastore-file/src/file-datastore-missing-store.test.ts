import { readFile, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createTempDir } from '@netledger/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileDatastore } from './file-datastore.js';
import { openError } from './test-open-error.js';

const handleKey = (id: string) => ({ kind: 'IPAMHandle', handleId: id }) as const;
const handleValue = (id: string) => ({ handleId: id, block: { '10.0.0.0/26': 1 }, deleted: false });

describe('file datastore whose store file is missing', () => {
  let dir: { path: string; remove: () => Promise<void> };
  let path: string;

  beforeEach(async () => {
    dir = await createTempDir('netledger-missing-');
    path = join(dir.path, 'datastore.json');
    const ds = await createFileDatastore({ path });
    for (const id of ['h1', 'h2', 'h3'])
      await ds.create({ key: handleKey(id), value: handleValue(id) });
    await ds.close();
  });
  afterEach(async () => {
    await dir.remove();
  });

  it('refuses to create an empty store over the previous generation, naming repair', async () => {
    await rm(path);
    const backup = await readFile(`${path}.prev`);
    for (const readOnly of [false, true]) {
      const error: unknown = await createFileDatastore({ path, readOnly }).then(
        async (ds) => {
          await ds.close();
          return undefined;
        },
        (e: unknown) => e,
      );
      expect(error).toMatchObject({
        code: 'CorruptValue',
        identifier: path,
        message: `${path}: the datastore file is missing but its previous generation ${path}.prev exists; refusing to start an empty store over it: run \`netledgerctl datastore repair\` to restore it`,
      });
    }
    // The backup is untouched and no store was created; only the lock's leftovers may remain.
    expect(await readFile(`${path}.prev`)).toEqual(backup);
    expect((await readdir(dir.path)).filter((n) => !n.endsWith('.lock'))).toEqual([
      'datastore.json.prev',
    ]);
  });

  it('an open store whose file is removed fails Unavailable, writes nothing, and points at repair', async () => {
    const ds = await createFileDatastore({ path });
    try {
      await rm(path);
      const backup = await readFile(`${path}.prev`);
      await expect(
        ds.create({ key: handleKey('h4'), value: handleValue('h4') }),
      ).rejects.toMatchObject({
        code: 'Unavailable',
        message: expect.stringContaining('netledgerctl datastore repair'),
      });
      expect(await readFile(`${path}.prev`)).toEqual(backup);
      expect(await openError(path)).toMatchObject({ code: 'CorruptValue' });
    } finally {
      await ds.close();
    }
  });

  it('creates a new store when there is neither a store file nor a previous generation', async () => {
    await rm(path);
    await rm(`${path}.prev`);
    const ds = await createFileDatastore({ path });
    expect((await ds.list({ kind: 'IPAMHandle' })).items).toEqual([]);
    await ds.close();
  });
});
