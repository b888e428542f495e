import { spawnSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createTempDir } from '@netledger/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileDatastore } from './file-datastore.js';
import { openError } from './test-open-error.js';
import { formatLockHolder } from '@netledger/file-lock';

const key = { kind: 'IPAMHandle', handleId: 'h1' } as const;
const value = { handleId: 'h1', block: {}, deleted: false };

describe('file datastore refusals', () => {
  let dir: { path: string; remove: () => Promise<void> };
  let path: string;

  beforeEach(async () => {
    dir = await createTempDir('netledger-refuse-');
    path = join(dir.path, 'datastore.json');
  });
  afterEach(async () => {
    await dir.remove();
  });

  it.each([
    { why: 'text that is not JSON', text: '{"format": "netledger-', says: ['not valid JSON'] },
    { why: 'an empty file', text: '', says: ['not valid JSON'] },
    { why: 'the wrong shape', text: '{"entries": []}', says: ['format'] },
  ])(
    'refuses to open $why with CorruptValue, and leaves the file as it was',
    async ({ text, says }) => {
      await writeFile(path, text);
      for (let i = 0; i < 2; i++) {
        const error = await openError(path);
        expect(error.code).toBe('CorruptValue');
        expect(error.message.startsWith(`${path}: `)).toBe(true);
        for (const s of says) expect(error.message).toContain(s);
      }
      expect(await readFile(path, 'utf8')).toBe(text);
    },
  );

  it('refuses a store holding a value that fails decoding, naming the key', async () => {
    const ds = await createFileDatastore({ path });
    await ds.create({ key, value });
    await ds.close();
    const doc = JSON.parse(await readFile(path, 'utf8')) as {
      entries: Record<string, { value: string }>;
    };
    doc.entries['/calico/ipam/v2/handle/h1']!.value = '{"block": {"10.0.0.0/26": "one"}}';
    const broken = JSON.stringify(doc);
    await writeFile(path, broken);
    const error = await openError(path);
    expect(error).toMatchObject({ code: 'CorruptValue', identifier: '/calico/ipam/v2/handle/h1' });
    expect(error.message).toContain(path);
    expect(error.message).toContain('/calico/ipam/v2/handle/h1');
    expect(await readFile(path, 'utf8')).toBe(broken);
  });

  it('refuses a sealed file with a flipped bit in a value that still decodes, naming repair', async () => {
    const ds = await createFileDatastore({ path });
    await ds.create({
      key,
      value: { handleId: 'h1', block: { '10.0.0.0/26': 2 }, deleted: false },
    });
    await ds.close();
    const text = await readFile(path, 'utf8');
    // 2 -> 3 (0x32 -> 0x33) in the stored value: it still decodes, as a different count.
    const flipped = text.replace('\\"10.0.0.0/26\\":2', '\\"10.0.0.0/26\\":3');
    expect(flipped).not.toBe(text);
    await writeFile(path, flipped);
    for (let i = 0; i < 2; i++) {
      const error = await openError(path);
      expect(error).toMatchObject({ code: 'CorruptValue', identifier: path });
      expect(error.message).toBe(
        `${path}: corrupt datastore file: its seal does not match its contents (damaged on disk, or edited by hand), although every value decodes; run \`netledgerctl datastore repair\``,
      );
    }
    expect(await readFile(path, 'utf8')).toBe(flipped);
  });

  it('opens a file edited by hand with its seal removed, after checking every value', async () => {
    const ds = await createFileDatastore({ path });
    await ds.create({ key, value });
    await ds.close();
    const doc = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
    delete doc.seal;
    await writeFile(path, JSON.stringify(doc));
    const reopened = await createFileDatastore({ path });
    expect((await reopened.get(key)).value).toEqual(value);
    await reopened.close();
  });

  it('refuses a value over 1.5 MiB encoded, naming the key and the limit, before writing anything', async () => {
    const ds = await createFileDatastore({ path });
    try {
      await ds.create({ key, value });
      const before = await readFile(path, 'utf8');
      const big = {
        metadata: { name: 'n1', annotations: { blob: 'x'.repeat(2 * 1024 * 1024) } },
        spec: {},
        status: {},
      };
      const nodeKey = { kind: 'Node', name: 'n1' } as const;
      for (const write of [
        () => ds.create({ key: nodeKey, value: big }),
        () => ds.apply({ key: nodeKey, value: big }),
        () => ds.transact!([{ op: 'create', kv: { key: nodeKey, value: big } }]),
      ]) {
        await expect(write()).rejects.toMatchObject({
          code: 'InvalidArgument',
          identifier: '/calico/resources/v3/projectcalico.org/nodes/n1',
          message: expect.stringContaining('over the limit of 1572864 bytes (1.5 MiB') as unknown,
        });
      }
      expect(await readFile(path, 'utf8')).toBe(before);
    } finally {
      await ds.close();
    }
  });

  it('refuses to write over a file that went corrupt after opening', async () => {
    const ds = await createFileDatastore({ path });
    await writeFile(path, 'not a store at all');
    await expect(ds.apply({ key, value })).rejects.toMatchObject({ code: 'CorruptValue' });
    await ds.close();
    expect(await readFile(path, 'utf8')).toBe('not a store at all');
  });

  it('refuses a location whose parent is a regular file: read-only / not writable', async () => {
    await writeFile(join(dir.path, 'file'), '');
    const error = await openError(join(dir.path, 'file', 'sub', 'datastore.json'));
    expect(error.code).toBe('Unavailable');
    expect(error.message).toMatch(/^\/.*\/file\/sub\/datastore\.json: read-only/);
  });

  it('refuses a path that is a directory: InvalidArgument', async () => {
    await mkdir(path);
    const error = await openError(path);
    expect(error.code).toBe('InvalidArgument');
    expect(error.message).toBe(`${path}: is a directory, not a datastore file`);
  });

  it('fails Unavailable naming the pid when a live process holds the lock past lockTimeoutMs', async () => {
    const ds = await createFileDatastore({ path, lockTimeoutMs: 100 });
    await writeFile(`${path}.lock`, formatLockHolder({ pid: process.pid, nonce: 'someone-else' }));
    const error = await ds.create({ key, value }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'Unavailable' });
    expect((error as Error).message).toContain(`held by pid ${process.pid}`);
    await ds.close();
  });

  it('recovers a lock left by a dead process', async () => {
    const deadPid = spawnSync(process.execPath, ['-e', '']).pid;
    await writeFile(`${path}.lock`, formatLockHolder({ pid: deadPid, nonce: 'crashed' }));
    const ds = await createFileDatastore({ path, lockTimeoutMs: 1_000 });
    await ds.create({ key, value });
    expect((await ds.get(key)).value).toEqual(value);
    await ds.close();
  });
});
