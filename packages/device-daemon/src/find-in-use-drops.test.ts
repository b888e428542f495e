import { describe, expect, it } from 'vitest';
import { droppedBridges } from './diff-pools.js';
import { dropsInUseError, findInUseDrops } from './find-in-use-drops.js';
import { EMPTY_LEASE_BOOK } from './lease.js';
import type { LeaseBook } from './lease.js';
import { planRevision } from './plan-revision.js';
import { planStart } from './plan-start.js';
import type { Revision } from './revision.js';
import { revisionOf } from './test-fixtures.js';

const lan = { bridge: 'pvbr0', subnet: '10.0.5.0/24', gateway: '10.0.5.1' };
const lab = { bridge: 'pvbr1', subnet: '10.0.6.0/24', gateway: '10.0.6.1' };
const rev1 = revisionOf({
  pools: { lan, lab },
  containers: { a: { network: { pool: 'lan' } }, b: { network: { pool: 'lab' } } },
});

function started(rev: Revision, names: string[]): LeaseBook {
  let book = planRevision(EMPTY_LEASE_BOOK, new Map(), rev).book;
  for (const n of names) book = planStart(book, rev, n).book;
  return book;
}

/** What applying `next` over rev1 (a and b started) drops, with `running` and the bridges' ports. */
function dropsOf(next: Revision, running: string[], ports: Record<string, string[]> = {}) {
  const plan = planRevision(started(rev1, ['a', 'b']), rev1.pools, next);
  return findInUseDrops({
    released: plan.released,
    running: new Set(running),
    dropped: droppedBridges(plan.diff).map((b) => ({ ...b, ports: ports[b.bridge] ?? [] })),
  });
}

describe('findInUseDrops', () => {
  it('finds the leases of running containers a revision releases: no device.json pools at all', () => {
    const empty = revisionOf({ containers: {} });
    expect(dropsOf(empty, ['a'])).toMatchObject([
      { kind: 'lease', lease: { owner: 'a', pool: 'lan', address: '10.0.5.2' } },
    ]);
  });

  it('finds them when the container leaves, its pool changes under it, or it moves pool', () => {
    const gone = revisionOf({
      pools: { lan, lab },
      containers: { b: { network: { pool: 'lab' } } },
    });
    expect(dropsOf(gone, ['a', 'b']).map((d) => d.kind === 'lease' && d.lease.owner)).toEqual([
      'a',
    ]);
    const moved = revisionOf({
      pools: { lan: { ...lan, subnet: '10.0.7.0/24', gateway: '10.0.7.1' }, lab },
      containers: { a: { network: { pool: 'lan' } }, b: { network: { pool: 'lan' } } },
    });
    expect(dropsOf(moved, ['a', 'b']).map((d) => d.kind === 'lease' && d.lease.owner)).toEqual([
      'a',
      'b',
    ]);
  });

  it('lets a revision drop leases of stopped containers and keep running ones', () => {
    const onlyLab = revisionOf({ pools: { lab }, containers: { b: { network: { pool: 'lab' } } } });
    expect(dropsOf(onlyLab, ['b'])).toEqual([]);
    expect(dropsOf(rev1, ['a', 'b'])).toEqual([]);
  });

  it('finds a deleted bridge that still has ports, a removed pool’s or a renamed one’s', () => {
    const renamed = revisionOf({
      pools: { lan: { ...lan, bridge: 'pvbr9' } },
      containers: { a: { network: { pool: 'lan' } } },
    });
    expect(dropsOf(renamed, [], { pvbr0: ['veth-a'], pvbr1: ['veth-b', 'veth-c'] })).toEqual([
      { kind: 'bridge', pool: 'lab', bridge: 'pvbr1', ports: ['veth-b', 'veth-c'] },
      { kind: 'bridge', pool: 'lan', bridge: 'pvbr0', ports: ['veth-a'] },
    ]);
    expect(dropsOf(renamed, [], { pvbr0: [], pvbr1: [] })).toEqual([]);
  });
});

describe('dropsInUseError', () => {
  it('names what would be dropped and how to force it, in one line', () => {
    const e = dropsInUseError(dropsOf(revisionOf({}), ['a'], { pvbr0: ['veth-a'] }));
    expect(e).toMatchObject({
      code: 'DropsInUse',
      message:
        'the revision would drop what running containers use: lease 10.0.5.2 of running container a (pool lan, eth0); bridge pvbr0 of pool lan (ports veth-a); nothing was changed (force the apply to drop them: --force, or "force": true in the API)',
    });
  });

  it('counts what it does not name', () => {
    const drops = Array.from({ length: 11 }, (_, i) => ({
      kind: 'bridge' as const,
      pool: `p${i}`,
      bridge: `br${i}`,
      ports: ['v'],
    }));
    expect(dropsInUseError(drops).message).toContain('bridge br7 of pool p7 (ports v); 3 more;');
    expect(dropsInUseError(drops).message).not.toContain('br8');
  });
});
