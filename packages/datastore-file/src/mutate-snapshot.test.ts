import { encodeValue } from '@netledger/ipam-core/adapter';
import type { DatastoreKey } from '@netledger/ipam-core';
import { describe, expect, it } from 'vitest';
import { mutateSnapshot } from './mutate-snapshot.js';
import type { Mutation } from './mutate-snapshot.js';
import type { StoreSnapshot } from './store-snapshot.js';
import { emptySnapshot } from './store-snapshot.js';

const key = (handleId: string): DatastoreKey<'IPAMHandle'> => ({ kind: 'IPAMHandle', handleId });
const value = (handleId: string, n: number) =>
  encodeValue('IPAMHandle', { handleId, block: { '10.0.0.0/26': n }, deleted: false });
const ctx = { newUid: () => 'uid-new', historyLimit: 3 };

function run(mutations: Mutation[], start: StoreSnapshot = emptySnapshot('s')): StoreSnapshot {
  return mutations.reduce((s, m) => mutateSnapshot(s, [m], ctx).snapshot, start);
}

describe('mutateSnapshot', () => {
  const base = run([{ op: 'create', key: key('a'), value: value('a', 1) }]);

  it('creates at the next revision with a fresh uid, and leaves the input snapshot alone', () => {
    const { snapshot, changes } = mutateSnapshot(
      base,
      [{ op: 'create', key: key('b'), value: value('b', 1) }],
      ctx,
    );
    expect(changes[0]!.entry).toMatchObject({ modRevision: 2, createRevision: 2, uid: 'uid-new' });
    expect(snapshot).toMatchObject({ revision: 2, compactedRevision: 0 });
    expect(snapshot.history.map((r) => [r.type, r.revision, r.path])).toEqual([
      ['added', 1, '/calico/ipam/v2/handle/a'],
      ['added', 2, '/calico/ipam/v2/handle/b'],
    ]);
    expect(base.revision).toBe(1);
    expect(base.entries.has('/calico/ipam/v2/handle/b')).toBe(false);
  });

  it('keeps uid and createRevision across updates and applies', () => {
    const next = run(
      [
        { op: 'update', key: key('a'), value: value('a', 2), revision: '1' },
        { op: 'apply', key: key('a'), value: value('a', 3) },
      ],
      base,
    );
    expect(next.entries.get('/calico/ipam/v2/handle/a')).toMatchObject({
      value: value('a', 3),
      modRevision: 3,
      createRevision: 1,
      uid: 'uid-new',
    });
    expect(next.history.map((r) => r.type)).toEqual(['added', 'modified', 'modified']);
  });

  // The rules themselves are ipam-core's applyMutation (its tests); here, that they apply.
  it('refuses a write that breaks them with their code, and changes nothing', () => {
    const stale: Mutation = { op: 'update', key: key('a'), value: '{}', revision: '0' };
    expect(() => mutateSnapshot(base, [stale], ctx)).toThrow(
      expect.objectContaining({ code: 'UpdateConflict' }),
    );
    const again: Mutation = { op: 'create', key: key('a'), value: '{}' };
    expect(() => mutateSnapshot(base, [again], ctx)).toThrow(
      expect.objectContaining({ code: 'AlreadyExists' }),
    );
    expect(base).toMatchObject({ revision: 1, compactedRevision: 0 });
    expect(base.history).toHaveLength(1);
  });

  it('deletes, recording the previous object in the history', () => {
    const next = run([{ op: 'delete', key: key('a'), revision: '1', uid: 'uid-new' }], base);
    expect(next.entries.size).toBe(0);
    expect(next.history.at(-1)).toMatchObject({
      type: 'deleted',
      revision: 2,
      entry: { modRevision: 1 },
    });
  });

  it('keeps at most historyLimit changes and records what was compacted', () => {
    const many = run(
      Array.from({ length: 5 }, (_, i): Mutation => ({
        op: 'apply',
        key: key('c'),
        value: value('c', i),
      })),
      base,
    );
    expect(many).toMatchObject({ revision: 6, compactedRevision: 3 });
    expect(many.history.map((r) => r.revision)).toEqual([4, 5, 6]);
    const none = mutateSnapshot(base, [{ op: 'apply', key: key('c'), value: value('c', 0) }], {
      ...ctx,
      historyLimit: 0,
    });
    expect(none.snapshot).toMatchObject({ revision: 2, compactedRevision: 2, history: [] });
  });

  it('applies several writes as one, each at its own revision, or none of them', () => {
    const { snapshot, changes } = mutateSnapshot(
      base,
      [
        { op: 'update', key: key('a'), value: value('a', 2), revision: '1' },
        { op: 'create', key: key('b'), value: value('b', 1) },
      ],
      ctx,
    );
    expect(changes.map((c) => [c.type, c.revision])).toEqual([
      ['modified', 2],
      ['added', 3],
    ]);
    expect(snapshot).toMatchObject({ revision: 3, compactedRevision: 0 });
    expect(snapshot.history).toHaveLength(3);
    const refused = (): unknown =>
      mutateSnapshot(
        snapshot,
        [
          { op: 'create', key: key('c'), value: value('c', 1) },
          { op: 'update', key: key('b'), value: value('b', 2), revision: '2' },
        ],
        ctx,
      );
    expect(refused).toThrow(expect.objectContaining({ code: 'UpdateConflict' }));
    expect(snapshot.entries.has('/calico/ipam/v2/handle/c')).toBe(false);
  });
});
