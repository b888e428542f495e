// A cleanup that fails without failing the call is a FileWarning on `onWarning` (the store's, the
// repair's), never dropped and never in place of the call's own outcome; a file already gone is
// no failure.
import { spawnSync } from 'node:child_process';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { FileWarning } from '@netledger/file-lock';
import { createTempDir } from '@netledger/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileDatastore } from './file-datastore.js';
import { repairFileDatastore } from './repair-file-datastore.js';
import { createSnapshotCache } from './snapshot-cache.js';
import { commitStoreFile, loadStoreFile } from './store-file.js';
import type { StoreFileHandle, StoreFs } from './store-fs.js';
import { threadPoolFs } from './store-fs.js';
import { serializeStoreDocument } from './store-document.js';
import { emptySnapshot } from './store-snapshot.js';

const eio = (what: string): Error =>
  Object.assign(new Error(`EIO: i/o error, ${what}`), { code: 'EIO' });

/** `threadPoolFs` with chosen calls failing EIO: handles' close, rename, unlink of some paths. */
function failingFs(fails: {
  close?: boolean;
  rename?: boolean;
  unlink?: (path: string) => boolean;
}): StoreFs {
  const wrap = (h: StoreFileHandle): StoreFileHandle => ({
    ...h,
    close: fails.close ? () => h.close().then(() => Promise.reject(eio('close'))) : () => h.close(),
  });
  return {
    ...threadPoolFs,
    open: async (path, flags, mode) => wrap(await threadPoolFs.open(path, flags, mode)),
    rename: (from, to) =>
      fails.rename ? Promise.reject(eio(`rename '${from}'`)) : threadPoolFs.rename(from, to),
    unlink: (path) =>
      fails.unlink?.(path) ? Promise.reject(eio(`unlink '${path}'`)) : threadPoolFs.unlink(path),
  };
}

const HANDLE = { handleId: 'h', block: { '10.0.0.0/26': 1 }, deleted: false };

const collect = () => {
  const warnings: FileWarning[] = [];
  return { warnings, warn: (w: FileWarning) => void warnings.push(w) };
};

/** A pid that certainly belonged to a process that has exited and been reaped. */
const deadPid = (): number => spawnSync(process.execPath, ['-e', '']).pid;

describe('cleanups that fail are warnings', () => {
  let dir: { path: string; remove: () => Promise<void> };
  let path: string;
  beforeEach(async () => {
    dir = await createTempDir('netledger-warnings-');
    path = join(dir.path, 'datastore.json');
  });
  afterEach(async () => {
    await dir.remove();
  });

  it('a failed commit throws its own error; the temp file it cannot close or remove is a warning', async () => {
    const { warnings, warn } = collect();
    const fs = failingFs({ close: true, rename: true, unlink: (p) => p.includes('.tmp-') });
    const dirHandle = await threadPoolFs.open(dir.path, 'r');
    try {
      const commit = commitStoreFile({
        fs,
        path,
        dirHandle,
        contents: serializeStoreDocument(emptySnapshot('s1')),
        warn,
      });
      await expect(commit).rejects.toMatchObject({
        code: 'Unavailable',
        message: expect.stringContaining('writing the store failed (EIO: i/o error, rename'),
      });
    } finally {
      await dirHandle.close();
    }
    const temp = warnings[0]?.path;
    expect(temp).toMatch(/datastore\.json\.tmp-/);
    expect(warnings).toMatchObject([
      { message: 'could not close the temp file', path: temp, cause: { code: 'EIO' } },
      { message: 'could not remove the temp file', path: temp, cause: { code: 'EIO' } },
    ]);
  });

  it('a commit that fails before its temp file exists warns of nothing (a file already gone)', async () => {
    const { warnings, warn } = collect();
    const dirHandle = await threadPoolFs.open(dir.path, 'r');
    try {
      await expect(
        commitStoreFile({
          fs: threadPoolFs,
          path: join(dir.path, 'missing-dir', 'datastore.json'),
          dirHandle,
          contents: serializeStoreDocument(emptySnapshot('s1')),
          warn,
        }),
      ).rejects.toMatchObject({ code: 'Unavailable' });
    } finally {
      await dirHandle.close();
    }
    expect(warnings).toEqual([]);
  });

  it('a superseded file handle that fails to close is a warning; the newer snapshot is read', async () => {
    const dirHandle = await threadPoolFs.open(dir.path, 'r');
    const write = (storeId: string) =>
      commitStoreFile({
        fs: threadPoolFs,
        path,
        dirHandle,
        contents: serializeStoreDocument(emptySnapshot(storeId)),
        warn: () => undefined,
      }).then((w) => w.handle.close());
    try {
      await write('first');
      const fs = failingFs({ close: true });
      let warned!: (w: FileWarning) => void;
      const warning = new Promise<FileWarning>((resolve) => (warned = resolve));
      const cache = createSnapshotCache({
        fs,
        path,
        initial: await loadStoreFile(fs, path),
        onChange: () => undefined,
        warn: (w) => warned(w),
      });
      await write('second');
      expect((await cache.refresh()).storeId).toBe('second');
      expect(await warning).toMatchObject({
        message: 'could not close a superseded handle of',
        path,
        cause: { code: 'EIO' },
      });
    } finally {
      await dirHandle.close();
    }
  });

  it('createFileDatastore: what its open-time sweeps cannot remove is a warning; it opens', async () => {
    // Names the sweeps remove, as directories with something inside: unlink fails (EISDIR).
    const temp = `${path}.tmp-1234-abcdef`;
    const prepared = `${path}.lock-${deadPid()}-feed`;
    for (const d of [temp, prepared]) {
      await mkdir(d);
      await writeFile(join(d, 'x'), '');
    }
    const { warnings, warn } = collect();
    const ds = await createFileDatastore({ path, onWarning: warn });
    await ds.close();
    expect(warnings).toMatchObject([
      {
        message: 'could not remove the temp file of an unfinished write',
        path: temp,
        cause: { code: 'EISDIR' },
      },
      {
        message: 'could not check, so left in place, the prepared file',
        path: prepared,
        cause: { code: 'EISDIR' },
      },
    ]);
    expect(await readdir(dir.path)).toEqual(
      expect.arrayContaining(['datastore.json', basename(temp), basename(prepared)]),
    );
  });

  it('repairFileDatastore: a temp file it cannot remove is a warning; the repair is done', async () => {
    const ds = await createFileDatastore({ path });
    // Its first write keeps the created store as the previous generation the repair restores.
    await ds.create({ key: { kind: 'IPAMHandle', handleId: 'h' }, value: HANDLE });
    await ds.close();
    await writeFile(path, '{ not a store');
    const temp = `${path}.tmp-1234-abcdef`;
    await mkdir(temp);
    await writeFile(join(temp, 'x'), '');
    const { warnings, warn } = collect();
    const report = await repairFileDatastore({ path, onWarning: warn });
    expect(report).toMatchObject({ action: 'restored-previous', dryRun: false });
    expect(warnings).toMatchObject([
      {
        message: 'could not remove the temp file of an unfinished write',
        path: temp,
        cause: { code: 'EISDIR' },
      },
    ]);
  });
});
