import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFileLeaseStore, LEASE_FILE } from './file-lease-store.js';
import { decodeLeaseFile, encodeLeaseFile } from './lease-codec.js';
import { EMPTY_LEASE_BOOK } from './lease.js';
import { planStart } from './plan-start.js';
import { revisionOf, thrown } from './test-fixtures.js';

const rev = revisionOf({
  pools: {
    internal: {
      type: 'bridge',
      bridge: 'pvbr0',
      subnet: '10.0.5.0/24',
      gateway: '10.0.5.1',
      nat: true,
    },
  },
  containers: {
    a: { network: { pool: 'internal' } },
    s: { network: { pool: 'internal', ip: '10.0.5.9', mac: '02:11:22:33:44:55' } },
    legacy: { lxc: 'lxc.net.0.ipv4.address = 10.0.5.200' },
  },
});
const book = planStart(planStart(EMPTY_LEASE_BOOK, rev, 'a').book, rev, 's').book;

describe('lease file', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('round-trips pools, cursors and leases', () => {
    const decoded = decodeLeaseFile(encodeLeaseFile({ pools: rev.pools, book }));
    expect([...decoded.book.leases.values()]).toEqual([...book.leases.values()]);
    expect(decoded.book.cursors).toEqual(book.cursors);
    expect(decoded.pools.get('internal')).toEqual(rev.pools.get('internal'));
  });

  it.each([
    ['truncated JSON', '{"version":1,'],
    ['another version', '{"version":2,"pools":[],"cursors":{},"leases":[]}'],
    [
      'a bad address',
      '{"version":1,"pools":[],"cursors":{},"leases":[{"pool":"p","owner":"o","interface":"eth0","address":"x","mac":"02:00:00:00:00:01","kind":"dynamic"}]}',
    ],
    [
      'a bad pool',
      '{"version":1,"pools":[{"name":"p","subnet":"10.0.0.0/33"}],"cursors":{},"leases":[]}',
    ],
  ])('refuses %s', (_why, text) => {
    expect(thrown(() => decodeLeaseFile(text))).toMatchObject({ code: 'LeaseStoreCorrupt' });
  });

  it('saves atomically and loads back; nothing saved means undefined', async () => {
    dir = await mkdtemp(join(tmpdir(), 'nl-leases-'));
    const store = createFileLeaseStore({ dir: join(dir, 'data') });
    expect(await store.load()).toBeUndefined();
    await store.save({ pools: rev.pools, book });
    expect(await readdir(join(dir, 'data'))).toEqual([LEASE_FILE]);
    const loaded = await store.load();
    expect([...loaded!.book.leases.values()].map((l) => l.address)).toEqual([
      '10.0.5.2',
      '10.0.5.9',
    ]);
  });

  it('ignores a torn temp file left by a crash', async () => {
    dir = await mkdtemp(join(tmpdir(), 'nl-leases-'));
    const store = createFileLeaseStore({ dir });
    await store.save({ pools: rev.pools, book });
    await writeFile(join(dir, `${LEASE_FILE}.tmp`), '{"version":1,"po');
    expect((await store.load())?.book.leases.size).toBe(2);
  });
});
