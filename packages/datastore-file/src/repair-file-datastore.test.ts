import { readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { formatLockHolder } from '@netledger/file-lock';
import { IpamError } from '@netledger/ipam-core';
import type { Datastore } from '@netledger/ipam-core';
import { createTempDir } from '@netledger/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileDatastore } from './file-datastore.js';
import { repairFileDatastore } from './repair-file-datastore.js';

const handleKey = (id: string) => ({ kind: 'IPAMHandle', handleId: id }) as const;
const handleValue = (id: string, n: number) => ({
  handleId: id,
  block: { '10.0.0.0/26': n },
  deleted: false,
});
const HANDLES = ['h1', 'h2', 'h3', 'h4', 'h5'];
const handlePath = (id: string) => `/calico/ipam/v2/handle/${id}`;
const NOW = () => new Date('2026-01-02T03:04:05.678Z');
const ASIDE = '.corrupt-20260102T030405Z';

async function failure(p: Promise<unknown>): Promise<IpamError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(IpamError);
  return e as IpamError;
}

describe('repairFileDatastore', () => {
  let dir: { path: string; remove: () => Promise<void> };
  let path: string;

  /** h1..h5 created, then h5 updated: the last write (revision 6) changed h5 only. */
  async function seed(): Promise<void> {
    const ds = await createFileDatastore({ path });
    for (const id of HANDLES) await ds.create({ key: handleKey(id), value: handleValue(id, 1) });
    const h5 = await ds.get(handleKey('h5'));
    await ds.update({ ...h5, value: handleValue('h5', 2) });
    await ds.close();
  }

  /** Opens the repaired store and returns every handle's block count by id. */
  async function handles(): Promise<Record<string, number>> {
    const ds = await createFileDatastore({ path });
    try {
      const { items } = await ds.list({ kind: 'IPAMHandle' });
      return Object.fromEntries(
        items.map((kv) => [kv.key.handleId, kv.value.block['10.0.0.0/26'] ?? 0]),
      );
    } finally {
      await ds.close();
    }
  }

  beforeEach(async () => {
    dir = await createTempDir('netledger-repair-');
    path = join(dir.path, 'datastore.json');
  });
  afterEach(async () => {
    await dir.remove();
  });

  it('leaves a good store alone', async () => {
    await seed();
    const before = await readFile(path, 'utf8');
    const report = await repairFileDatastore({ path, now: NOW });
    expect(report).toMatchObject({ action: 'none', dryRun: false });
    expect(await readFile(path, 'utf8')).toBe(before);
    expect((await readdir(dir.path)).filter((n) => n.includes('.corrupt-'))).toEqual([]);
  });

  it('keeps the previous good generation beside the store at every write', async () => {
    await seed();
    const prev = JSON.parse(await readFile(`${path}.prev`, 'utf8')) as { revision: number };
    const cur = JSON.parse(await readFile(path, 'utf8')) as { revision: number };
    expect(prev.revision).toBe(cur.revision - 1);
  });

  it('a truncated file: restores the previous generation, naming the reverted key', async () => {
    await seed();
    const text = await readFile(path, 'utf8');
    const cut = text.slice(0, Math.floor(text.length * 0.9));
    await writeFile(path, cut);
    expect((await failure(createFileDatastore({ path }))).code).toBe('CorruptValue');

    const report = await repairFileDatastore({ path, now: NOW });
    expect(report).toMatchObject({
      action: 'restored-previous',
      objects: 5,
      keptAs: `${path}${ASIDE}`,
      lost: [{ path: handlePath('h5'), kind: 'reverted' }],
    });
    expect(report.problem).toContain('not valid JSON');
    // The damaged file is kept, byte for byte; the store opens with h5 as before the last write.
    expect(await readFile(`${path}${ASIDE}`, 'utf8')).toBe(cut);
    expect(await handles()).toEqual({ h1: 1, h2: 1, h3: 1, h4: 1, h5: 1 });
  });

  it('a truncated file, salvaged: keeps every whole record, says the tail is unknown', async () => {
    await seed();
    const text = await readFile(path, 'utf8');
    // Cut inside h3's record: h1 and h2 are whole, h3 is cut, h4 and h5 are gone.
    const cut = text.slice(0, text.indexOf('"/calico/ipam/v2/handle/h3"') + 40);
    await writeFile(path, cut);
    const report = await repairFileDatastore({ path, mode: 'salvage', now: NOW });
    expect(report).toMatchObject({ action: 'salvaged', objects: 2, complete: false });
    expect(report.lost).toEqual([
      { path: handlePath('h3'), kind: 'unreadable', reason: 'record cut off or overwritten' },
      { path: handlePath('h4'), kind: 'missing', reason: expect.stringContaining('revision 5') },
      { path: handlePath('h5'), kind: 'missing', reason: expect.any(String) },
    ]);
    expect(await handles()).toEqual({ h1: 1, h2: 1 });
    expect(await readFile(`${path}${ASIDE}`, 'utf8')).toBe(cut);
  });

  it('garbage over a record: salvage keeps the others and names the damaged one', async () => {
    await seed();
    const text = await readFile(path, 'utf8');
    const at = text.indexOf('"/calico/ipam/v2/handle/h2"') + 35;
    const damaged = `${text.slice(0, at)}\u0000\u00ff#garbage{[${text.slice(at + 20)}`;
    await writeFile(path, damaged);
    const report = await repairFileDatastore({ path, mode: 'salvage', now: NOW });
    expect(report).toMatchObject({ action: 'salvaged', objects: 4, complete: true });
    expect(report.lost).toMatchObject([{ path: handlePath('h2'), kind: 'unreadable' }]);
    expect(await handles()).toEqual({ h1: 1, h3: 1, h4: 1, h5: 2 });
  });

  it('a whole file of garbage: auto restores the previous generation', async () => {
    await seed();
    await writeFile(path, Buffer.from([0x00, 0xff, 0x13, 0x37, 0x7b]));
    const report = await repairFileDatastore({ path, now: NOW });
    expect(report).toMatchObject({ action: 'restored-previous', objects: 5, complete: false });
    expect(report.lost).toEqual([]);
    expect(await handles()).toEqual({ h1: 1, h2: 1, h3: 1, h4: 1, h5: 1 });
  });

  it('a bad inner value (sealed file edited): salvage loses exactly that key', async () => {
    await seed();
    const doc = JSON.parse(await readFile(path, 'utf8')) as {
      entries: Record<string, { value: string }>;
    };
    doc.entries[handlePath('h4')]!.value = '{"block":{"10.0.0.0/26":-3},"deleted":false}';
    await writeFile(path, JSON.stringify(doc));
    const report = await repairFileDatastore({ path, mode: 'salvage', now: NOW });
    expect(report).toMatchObject({ action: 'salvaged', objects: 4, complete: true });
    expect(report.lost).toMatchObject([{ path: handlePath('h4'), kind: 'unreadable' }]);
    expect(report.lost![0]!.reason).toContain(handlePath('h4'));
    expect(await handles()).toEqual({ h1: 1, h2: 1, h3: 1, h5: 2 });
  });

  it('a flipped bit in a value that still decodes: open refuses it, repair restores .prev', async () => {
    await seed();
    const text = await readFile(path, 'utf8');
    // h5's count 2 becomes 3 (0x32 -> 0x33): still a valid handle, but not what was written.
    const at = text.indexOf('\\"10.0.0.0/26\\":2', text.indexOf(`"${handlePath('h5')}"`));
    expect(at).toBeGreaterThan(0);
    const digit = at + '\\"10.0.0.0/26\\":'.length;
    const flipped = `${text.slice(0, digit)}3${text.slice(digit + 1)}`;
    await writeFile(path, flipped);

    const e = await failure(createFileDatastore({ path }));
    expect(e.code).toBe('CorruptValue');
    expect(e.message).toBe(
      `${path}: corrupt datastore file: its seal does not match its contents (damaged on disk, or edited by hand), although every value decodes; run \`netledgerctl datastore repair\``,
    );
    expect(await readFile(path, 'utf8')).toBe(flipped);

    const report = await repairFileDatastore({ path, now: NOW });
    expect(report).toMatchObject({
      action: 'restored-previous',
      objects: 5,
      lost: [{ path: handlePath('h5'), kind: 'reverted' }],
    });
    expect(report.problem).toContain('its seal does not match its contents');
    expect(await handles()).toEqual({ h1: 1, h2: 1, h3: 1, h4: 1, h5: 1 });
    expect(await readFile(`${path}${ASIDE}`, 'utf8')).toBe(flipped);
  });

  it('bad revision bookkeeping: restore reverts the last write and names the key', async () => {
    await seed();
    const doc = JSON.parse(await readFile(path, 'utf8')) as { history: unknown[] };
    doc.history.pop();
    await writeFile(path, JSON.stringify(doc));
    const report = await repairFileDatastore({ path, mode: 'previous', now: NOW });
    expect(report.problem).toContain('history holds');
    expect(report).toMatchObject({
      action: 'restored-previous',
      lost: [{ path: handlePath('h5'), kind: 'reverted' }],
    });
  });

  it('starts the repaired store above every revision handed out: a stale CAS conflicts', async () => {
    await seed();
    const ds = await createFileDatastore({ path });
    const stale = await ds.get(handleKey('h5')); // revision 6, lost with the damage below
    await ds.close();
    await writeFile(path, (await readFile(path, 'utf8')).slice(0, 50));
    const report = await repairFileDatastore({ path, now: NOW });
    expect(report.revision).toBeGreaterThan(Number(stale.revision));
    const after = await createFileDatastore({ path });
    try {
      // h5 is back at revision 5; the next write is past 6, so revision 6 never matches again.
      await after.update({ ...(await after.get(handleKey('h1'))), value: handleValue('h1', 7) });
      const e = await failure(after.update({ ...stale, value: handleValue('h5', 9) }));
      expect(e.code).toBe('UpdateConflict');
    } finally {
      await after.close();
    }
  });

  it('a dry run reports and changes nothing', async () => {
    await seed();
    await writeFile(path, 'garbage');
    const report = await repairFileDatastore({ path, dryRun: true, now: NOW });
    expect(report).toMatchObject({ action: 'restored-previous', dryRun: true });
    expect(report.keptAs).toBeUndefined();
    expect(await readFile(path, 'utf8')).toBe('garbage');
    expect((await readdir(dir.path)).filter((n) => n.includes('.corrupt-'))).toEqual([]);
  });

  it('refuses `previous` without a good previous generation, changing nothing', async () => {
    const damaged = '{"format":"netledger-datastore/v1","storeId":"s1","revi';
    await writeFile(path, damaged);
    const e = await failure(repairFileDatastore({ path, mode: 'previous', now: NOW }));
    expect(e.code).toBe('CorruptValue');
    expect(e.message).toContain('no previous generation');
    expect(await readFile(path, 'utf8')).toBe(damaged);
  });

  it('never overwrites a damaged file already kept under the same name', async () => {
    await seed();
    await writeFile(path, 'garbage 2');
    await writeFile(`${path}${ASIDE}`, 'garbage 1');
    const e = await failure(repairFileDatastore({ path, now: NOW }));
    expect(e.code).toBe('AlreadyExists');
    expect(await readFile(`${path}${ASIDE}`, 'utf8')).toBe('garbage 1');
    expect(await readFile(path, 'utf8')).toBe('garbage 2');
  });

  it('refuses while another live process holds the store lock', async () => {
    await seed();
    await writeFile(path, 'garbage');
    // A live holder: this very process, under another nonce.
    await writeFile(`${path}.lock`, formatLockHolder({ pid: process.pid, nonce: 'other' }));
    const e = await failure(repairFileDatastore({ path, lockTimeoutMs: 100, now: NOW }));
    expect(e.code).toBe('Unavailable');
    expect(e.message).toContain(`held by pid ${process.pid}`);
    expect(await readFile(path, 'utf8')).toBe('garbage');
  });

  it('fails DoesNotExist when there is no store', async () => {
    expect((await failure(repairFileDatastore({ path }))).code).toBe('DoesNotExist');
  });

  it('an open store in another instance sees the repaired store; its watch expires', async () => {
    await seed();
    // No polling: the read below is what makes the instance see the repaired file.
    const other: Datastore = await createFileDatastore({ path, watchIntervalMs: 3_600_000 });
    try {
      const watch = other.watch({ kind: 'IPAMHandle' });
      await watch.established;
      await writeFile(path, 'garbage');
      await repairFileDatastore({ path, now: NOW });
      expect((await other.get(handleKey('h5'))).value).toEqual(handleValue('h5', 1));
      const events = watch[Symbol.asyncIterator]();
      await expect(events.next()).rejects.toMatchObject({ code: 'WatchExpired' });
    } finally {
      await other.close();
    }
  });

  it('writes the repaired store 0600', async () => {
    await seed();
    await writeFile(path, 'garbage');
    await repairFileDatastore({ path, now: NOW });
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });
});
