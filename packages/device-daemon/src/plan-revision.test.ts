import { describe, expect, it } from 'vitest';
import { EMPTY_LEASE_BOOK } from './lease.js';
import type { LeaseBook } from './lease.js';
import { planRevision } from './plan-revision.js';
import { planStart } from './plan-start.js';
import type { Revision } from './revision.js';
import { revisionOf } from './test-fixtures.js';

const internal = { type: 'bridge', bridge: 'pvbr0', subnet: '10.0.5.0/24', gateway: '10.0.5.1' };
const lab = { type: 'bridge', bridge: 'pvbr1', subnet: '10.0.6.0/24', gateway: '10.0.6.1' };

function startAll(book: LeaseBook, rev: Revision, names: string[]): LeaseBook {
  for (const n of names) book = planStart(book, rev, n).book;
  return book;
}

describe('planRevision', () => {
  const rev1 = revisionOf({
    pools: { internal, lab },
    containers: {
      a: { network: { pool: 'internal' } },
      b: { network: { pool: 'lab' } },
      c: { network: { pool: 'internal' } },
    },
  });

  it('keeps the leases of containers that stay, whatever the start order afterwards', () => {
    const book = startAll(planRevision(EMPTY_LEASE_BOOK, new Map(), rev1).book, rev1, [
      'a',
      'b',
      'c',
    ]);
    const again = planRevision(book, rev1.pools, rev1);
    expect(again.released).toEqual([]);
    const restarted = startAll(again.book, rev1, ['c', 'b', 'a']);
    expect([...restarted.leases.values()].map((l) => [l.owner, l.address]).sort()).toEqual([
      ['a', '10.0.5.2'],
      ['b', '10.0.6.2'],
      ['c', '10.0.5.3'],
    ]);
  });

  it('releases leases of removed pools, removed containers and moved interfaces', () => {
    const book = startAll(EMPTY_LEASE_BOOK, rev1, ['a', 'b', 'c']);
    const rev2 = revisionOf({
      pools: { internal },
      containers: { a: { network: { pool: 'internal', interfaces: [{ name: 'eth1' }] } } },
    });
    const plan = planRevision(book, rev1.pools, rev2);
    expect(plan.diff.removed.map((p) => p.name)).toEqual(['lab']);
    expect(plan.released.map((l) => l.owner).sort()).toEqual(['a', 'b', 'c']);
    expect(plan.book.leases.size).toBe(0);
    expect(plan.book.cursors.has('lab')).toBe(false);
  });

  it('keeps a lease that stays valid in a changed pool and drops one that does not', () => {
    const book = startAll(EMPTY_LEASE_BOOK, rev1, ['a', 'c']);
    const rev2 = revisionOf({
      pools: { internal: { ...internal, gateway: '10.0.5.3', nat: true }, lab },
      containers: { a: { network: { pool: 'internal' } }, c: { network: { pool: 'internal' } } },
    });
    const plan = planRevision(book, rev1.pools, rev2);
    expect(plan.diff.changed.map((c) => c.after.name)).toEqual(['internal']);
    expect([...plan.book.leases.values()].map((l) => l.owner)).toEqual(['a']);
  });

  it('recomputes reservations from lxc configs', () => {
    const rev = revisionOf({
      pools: { internal },
      containers: { legacy: { lxc: 'lxc.net.0.ipv4.address = 10.0.5.2/24' } },
    });
    const plan = planRevision(EMPTY_LEASE_BOOK, new Map(), rev);
    expect(plan.reservations).toMatchObject([{ outcome: 'reserved', address: '10.0.5.2' }]);
    const withoutLegacy = planRevision(plan.book, rev.pools, revisionOf({ pools: { internal } }));
    expect(withoutLegacy.book.leases.size).toBe(0);
  });
});
