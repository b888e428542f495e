import { execFile, spawnSync } from 'node:child_process';
import { link, open, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Datastore, DatastoreKey, WatchEvent } from '@netledger/ipam-core';
import { IpamError } from '@netledger/ipam-core';
import { BlockBuilder, createTempDir, describeDatastoreContract } from '@netledger/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileDatastore } from './file-datastore.js';
import type { FileDatastoreOptions } from './file-datastore.js';
import { formatLockHolder } from '@netledger/file-lock';

const dirs: Array<{ remove: () => Promise<void> }> = [];

describe.each([false, true])('blocking file calls: %s', (blockingIo) => {
  describeDatastoreContract('file', {
    async open() {
      const dir = await createTempDir('netledger-file-contract-');
      dirs.push(dir);
      return createFileDatastore({ path: join(dir.path, 'datastore.json'), blockingIo });
    },
    async teardown() {
      await Promise.all(dirs.map((d) => d.remove()));
    },
  });
});

const handle = (handleId: string): DatastoreKey<'IPAMHandle'> => ({ kind: 'IPAMHandle', handleId });
const handleValue = (handleId: string, n = 0) => ({
  handleId,
  block: { '10.0.0.0/26': n },
  deleted: false,
});

async function nextEvent(stream: AsyncIterable<WatchEvent>): Promise<WatchEvent> {
  for await (const e of stream) return e;
  throw new Error('watch ended');
}

describe('file datastore', () => {
  let dir: { path: string; remove: () => Promise<void> };
  let path: string;
  const opened: Datastore[] = [];
  const openStore = async (options: Omit<FileDatastoreOptions, 'path'> = {}) => {
    const ds = await createFileDatastore({ path, ...options });
    opened.push(ds);
    return ds;
  };

  beforeEach(async () => {
    dir = await createTempDir('netledger-file-');
    path = join(dir.path, 'nested', 'datastore.json');
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((ds) => ds.close()));
    await dir.remove();
  });

  // What the store would refuse to read back it refuses to write: before, the write landed and
  // its caller got CorruptValue for the value now stored.
  it.each([
    [
      "a block under another block's key",
      { kind: 'IPAMBlock', cidr: '10.0.0.64/26' },
      'is not the block 10.0.0.64/26',
    ],
    [
      'a block whose allocation points at a missing attribute',
      { kind: 'IPAMBlock', cidr: '10.0.0.0/26' },
      'points at attribute 1',
    ],
  ] as const)('refuses to write %s with InvalidArgument, writing nothing', async (_, key, says) => {
    const ds = await openStore();
    await ds.create({ key: handle('h'), value: handleValue('h') });
    const before = await readFile(path, 'utf8');
    const block = new BlockBuilder('10.0.0.0/26').allocate([0], 'h').build();
    const value =
      key.cidr === '10.0.0.0/26'
        ? { ...block, allocations: [1, ...block.allocations.slice(1)] }
        : block;
    for (const write of [() => ds.create({ key, value }), () => ds.apply({ key, value })]) {
      await expect(write()).rejects.toMatchObject({
        code: 'InvalidArgument',
        identifier: '/calico/ipam/v2/assignment/ipv4/block/' + key.cidr.replace('/', '-'),
        message: expect.stringContaining(says),
      });
    }
    expect(await readFile(path, 'utf8')).toBe(before);
  });

  it('creates its directory and keeps data and revisions across reopening', async () => {
    const a = await openStore();
    const created = await a.create({ key: handle('h1'), value: handleValue('h1', 1) });
    await a.close();
    const b = await openStore();
    const got = await b.get(handle('h1'));
    expect(got).toMatchObject({
      revision: created.revision,
      uid: created.uid,
      value: handleValue('h1', 1),
    });
    const later = await b.apply({ key: handle('h2'), value: handleValue('h2') });
    expect(Number(later.revision)).toBeGreaterThan(Number(created.revision));
    const doc = JSON.parse(await readFile(path, 'utf8')) as { entries: Record<string, unknown> };
    expect(doc.entries['/calico/ipam/v2/handle/h1']).toMatchObject({
      value: '{"block":{"10.0.0.0/26":1},"deleted":false}',
      modRevision: 1,
      createRevision: 1,
    });
  });

  it('leaves only the store file and its previous generation behind: no lock, no temp files', async () => {
    const a = await openStore();
    await a.create({ key: handle('h1'), value: handleValue('h1') });
    await a.close();
    expect((await readdir(join(dir.path, 'nested'))).sort()).toEqual([
      'datastore.json',
      'datastore.json.prev',
    ]);
  });

  // Found by the kill -9 test: a writer that died after keeping the store as `.prev`, before
  // replacing the store, leaves `.prev` a link to the current file; the next write's link was then
  // renamed over it, which does nothing (the same file), and stayed behind.
  it('leaves no link behind when .prev already is the current file', async () => {
    const a = await openStore();
    await a.create({ key: handle('h1'), value: handleValue('h1') });
    const nested = join(dir.path, 'nested');
    await rm(join(nested, 'datastore.json.prev'));
    await link(join(nested, 'datastore.json'), join(nested, 'datastore.json.prev'));
    const before = await readFile(join(nested, 'datastore.json'), 'utf8');
    await a.create({ key: handle('h2'), value: handleValue('h2') });
    await a.close();
    expect((await readdir(nested)).sort()).toEqual(['datastore.json', 'datastore.json.prev']);
    expect(await readFile(join(nested, 'datastore.json.prev'), 'utf8')).toBe(before);
  });

  it('shares state and compare-and-swap between two instances on one file', async () => {
    const a = await openStore();
    const b = await openStore();
    const v1 = await a.create({ key: handle('h1'), value: handleValue('h1', 1) });
    const seen = await b.get(handle('h1'));
    expect(seen.revision).toBe(v1.revision);
    await b.update({ ...seen, value: handleValue('h1', 2) });
    await expect(a.update({ ...v1, value: handleValue('h1', 3) })).rejects.toMatchObject({
      code: 'UpdateConflict',
    });
    expect((await a.get(handle('h1'))).value).toEqual(handleValue('h1', 2));
    expect((await a.list({ kind: 'IPAMHandle' })).revision).toBe(
      (await b.list({ kind: 'IPAMHandle' })).revision,
    );
  });

  it("delivers another instance's writes to a watch, by polling the file", async () => {
    const a = await openStore({ watchIntervalMs: 10 });
    const b = await openStore();
    const stream = a.watch({ kind: 'IPAMHandle' });
    const first = nextEvent(stream);
    await b.create({ key: handle('from-b'), value: handleValue('from-b') });
    expect(await first).toMatchObject({ type: 'added', kv: { key: handle('from-b') } });
    stream.close();
  });

  it('replays from a revision written before this instance opened', async () => {
    const a = await openStore();
    const x = await a.create({ key: handle('x'), value: handleValue('x') });
    await a.create({ key: handle('y'), value: handleValue('y') });
    const b = await openStore();
    const stream = b.watch({ kind: 'IPAMHandle' }, { revision: x.revision });
    expect(await nextEvent(stream)).toMatchObject({ type: 'added', kv: { key: handle('y') } });
    stream.close();
  });

  it('expires watches that start before, or fall behind, the history the file keeps', async () => {
    const a = await openStore({ historyLimit: 2, watchIntervalMs: 60_000 });
    const b = await openStore({ historyLimit: 2 });
    for (let i = 0; i < 3; i++) await a.apply({ key: handle('h'), value: handleValue('h', i) });
    await expect(
      nextEvent(a.watch({ kind: 'IPAMHandle' }, { revision: '0' })),
    ).rejects.toMatchObject({
      code: 'WatchExpired',
    });
    const behind = a.watch({ kind: 'IPAMHandle' });
    for (let i = 0; i < 3; i++)
      await b.apply({ key: handle('h'), value: handleValue('h', 10 + i) });
    await a.get(handle('h')); // a notices the file changed
    await expect(nextEvent(behind)).rejects.toMatchObject({ code: 'WatchExpired' });
  });

  it('serves reads of an unchanged file from memory, and re-reads it once it changes', async () => {
    const a = await openStore();
    await a.create({ key: handle('h1'), value: handleValue('h1') });
    const text = await readFile(path, 'utf8');
    // Overwrite the file in place with same-length garbage, keeping inode, size and mtime.
    const ref = join(dir.path, 'times');
    await writeFile(ref, '');
    await promisify(execFile)('touch', ['-r', path, ref]);
    const fh = await open(path, 'r+');
    await fh.write('x'.repeat(text.length), 0);
    await fh.close();
    await promisify(execFile)('touch', ['-r', ref, path]);
    expect((await a.get(handle('h1'))).value).toEqual(handleValue('h1'));
    await promisify(execFile)('touch', [path]);
    await expect(a.get(handle('h1'))).rejects.toMatchObject({ code: 'CorruptValue' });
  });

  it('gives every read its own value: changing one changes no later get, list or watch', async () => {
    const a = await openStore();
    const key: DatastoreKey<'IPAMBlock'> = { kind: 'IPAMBlock', cidr: '10.0.0.0/30' };
    const block = new BlockBuilder('10.0.0.0/30').affine('n1').allocate([0], 'h1').build();
    const written = await a.create({ key, value: block });
    const read = async () => [
      (await a.get(key)).value,
      (await a.list({ kind: 'IPAMBlock' })).items[0]!.value,
    ];
    // Two rounds: the first reads decode, later ones copy what the store keeps.
    for (const value of [...(await read()), ...(await read())]) {
      (value.allocations as (number | null)[])[1] = 0;
      (value.attributes as unknown[]).push({ handleId: 'mine' });
    }
    const watch = a.watch({ kind: 'IPAMBlock' }, { revision: '0' });
    const event = await nextEvent(watch);
    if (event.type !== 'added') throw new Error('expected an added event');
    for (const value of [...(await read()), event.kv.value]) {
      expect(value).toEqual(written.value);
      expect(value).not.toBe(written.value);
    }
    watch.close();
  });

  it('fails Unavailable once the file is removed, and once closed', async () => {
    const a = await openStore();
    await rm(path);
    await expect(a.get(handle('h1'))).rejects.toMatchObject({ code: 'Unavailable' });
    await a.close();
    await expect(a.list({ kind: 'IPAMHandle' })).rejects.toBeInstanceOf(IpamError);
    await expect(a.create({ key: handle('h'), value: handleValue('h') })).rejects.toMatchObject({
      code: 'Unavailable',
    });
  });

  it('sweeps what crashed processes left when it opens: temp files, dead prepared locks', async () => {
    const a = await openStore();
    await a.close();
    await writeFile(`${path}.tmp-999999-abc`, '{"half": ');
    const deadPid = spawnSync(process.execPath, ['-e', '']).pid;
    await writeFile(`${path}.lock-${deadPid}-n`, formatLockHolder({ pid: deadPid, nonce: 'n' }));
    // Killed between creating its prepared lock file and writing its record (issue #20).
    await writeFile(`${path}.lock-${deadPid}-0b1f`, '');
    await openStore();
    const left = await readdir(join(dir.path, 'nested'));
    // The open instance keeps its own prepared lock file (@netledger/file-lock) until it closes.
    expect(left.filter((f) => !f.startsWith(`datastore.json.lock-${process.pid}-`))).toEqual([
      'datastore.json',
    ]);
  });
});
