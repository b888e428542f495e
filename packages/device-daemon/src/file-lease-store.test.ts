import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFileLeaseStore, LEASE_FILE } from './file-lease-store.js';
import { decodeLeaseFile, encodeLeaseFile } from './lease-codec.js';
import { EMPTY_LEASE_BOOK } from './lease.js';
import { planRevision } from './plan-revision.js';
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
    ['another version', '{"version":3,"pools":[],"cursors":{},"leases":[]}'],
    [
      'an IPv6 address in an IPv4 lease',
      '{"version":1,"pools":[],"cursors":{},"leases":[{"pool":"p","owner":"o","interface":"eth0","address":"fd00::2","mac":"02:00:00:00:00:02","kind":"dynamic"}]}',
    ],
    ['a fractional cursor', '{"version":1,"pools":[],"cursors":{"p":1.5},"leases":[]}'],
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

  it('writes a state without IPv6 in format 1, as earlier daemons did, so a rolled-back one reads it', () => {
    const text = encodeLeaseFile({ pools: rev.pools, book });
    expect(JSON.parse(text)).toMatchObject({ version: 1, cursors: { internal: 2 } });
    expect(text).not.toContain('family');
    expect(text).not.toContain('subnet6');
  });

  it('round-trips IPv6 pools, leases and cursors beyond 2^53 in format 2', () => {
    const six = revisionOf({
      pools: {
        dual: {
          bridge: 'pvbr1',
          subnet: '10.0.7.0/24',
          gateway: '10.0.7.1',
          subnet6: 'fd00:7::/64',
          gateway6: 'fd00:7::ffff:ffff:ffff:fff0',
          nat6: true,
        },
      },
      containers: {
        a: { network: { pool: 'dual' } },
        legacy: { lxc: 'lxc.net.0.ipv6.address = fd00:7::5/64' },
      },
    });
    const started = planStart(planRevision(EMPTY_LEASE_BOOK, new Map(), six).book, six, 'a').book;
    const text = encodeLeaseFile({ pools: six.pools, book: started });
    const doc = JSON.parse(text) as { version: number; cursors: Record<string, unknown> };
    expect(doc.version).toBe(2);
    // The IPv6 cursor sits above 2^53: written as a decimal string, exact.
    expect(doc.cursors['dual/6']).toBe(String((1n << 64n) - 15n));
    const decoded = decodeLeaseFile(text);
    expect([...decoded.book.leases.values()]).toEqual([...started.leases.values()]);
    expect(decoded.book.cursors).toEqual(started.cursors);
    expect(decoded.pools.get('dual')).toEqual(six.pools.get('dual'));
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
