import { describe, expect, it } from 'vitest';
import { IpamError } from '../errors.js';
import type { DatastoreKey } from '../model/keys.js';
import { applyMutation } from './apply-mutation.js';
import type { EntryState, Mutation, StoredEntry } from './apply-mutation.js';

const key = (handleId: string): DatastoreKey<'IPAMHandle'> => ({ kind: 'IPAMHandle', handleId });
const ctx = { newUid: 'uid-new' };

/** Applies mutations in order to a plain map, as a store would. */
function run(mutations: Mutation<string>[], start?: EntryState<string>): EntryState<string> {
  const entries = new Map<string, StoredEntry<string>>(start?.entries);
  let revision = start?.revision ?? 0;
  for (const m of mutations) {
    const change = applyMutation({ entries, revision }, m, ctx);
    revision = change.revision;
    if (change.type === 'deleted') entries.delete(change.path);
    else entries.set(change.path, change.entry);
  }
  return { entries, revision };
}

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return e instanceof IpamError ? e.code : 'not an IpamError';
  }
  return undefined;
}

describe('applyMutation', () => {
  const base = run([{ op: 'create', key: key('a'), value: 'a1' }]);

  it('creates at the next revision with a fresh uid, and changes nothing it was given', () => {
    const change = applyMutation(base, { op: 'create', key: key('b'), value: 'b1' }, ctx);
    expect(change).toMatchObject({
      type: 'added',
      revision: 2,
      path: '/calico/ipam/v2/handle/b',
      entry: { value: 'b1', modRevision: 2, createRevision: 2, uid: 'uid-new' },
    });
    expect(base.revision).toBe(1);
    expect([...base.entries.keys()]).toEqual(['/calico/ipam/v2/handle/a']);
  });

  it('keeps uid and createRevision across updates and applies', () => {
    const next = run(
      [
        { op: 'update', key: key('a'), value: 'a2', revision: '1' },
        { op: 'apply', key: key('a'), value: 'a3' },
        { op: 'apply', key: key('c'), value: 'c1' },
      ],
      base,
    );
    expect(next.entries.get('/calico/ipam/v2/handle/a')).toMatchObject({
      value: 'a3',
      modRevision: 3,
      createRevision: 1,
      uid: 'uid-new',
    });
    expect(next.entries.get('/calico/ipam/v2/handle/c')).toMatchObject({
      modRevision: 4,
      createRevision: 4,
    });
  });

  it.each<{ why: string; mutation: Mutation<string>; code: string }>([
    {
      why: 'create of an existing key',
      mutation: { op: 'create', key: key('a'), value: '{}' },
      code: 'AlreadyExists',
    },
    {
      why: 'update at an old revision',
      mutation: { op: 'update', key: key('a'), value: '{}', revision: '0' },
      code: 'UpdateConflict',
    },
    {
      why: 'update of a missing key',
      mutation: { op: 'update', key: key('z'), value: '{}', revision: '1' },
      code: 'DoesNotExist',
    },
    {
      why: 'delete at an old revision',
      mutation: { op: 'delete', key: key('a'), revision: '7' },
      code: 'UpdateConflict',
    },
    {
      why: 'delete with another uid',
      mutation: { op: 'delete', key: key('a'), uid: 'other' },
      code: 'UpdateConflict',
    },
    {
      why: 'delete of a missing key',
      mutation: { op: 'delete', key: key('z') },
      code: 'DoesNotExist',
    },
  ])('refuses $why with $code', ({ mutation, code }) => {
    expect(codeOf(() => applyMutation(base, mutation, ctx))).toBe(code);
  });

  it('names the key in its refusals, as every store words them', () => {
    expect(() => applyMutation(base, { op: 'create', key: key('a'), value: '' }, ctx)).toThrow(
      'resource already exists: /calico/ipam/v2/handle/a',
    );
    expect(() => applyMutation(base, { op: 'delete', key: key('z') }, ctx)).toThrow(
      /^resource does not exist: /,
    );
    expect(() =>
      applyMutation(base, { op: 'update', key: key('a'), value: '', revision: '9' }, ctx),
    ).toThrow(/^update conflict: /);
  });

  it('deletes at the next revision, returning the object as it was', () => {
    const change = applyMutation(
      base,
      { op: 'delete', key: key('a'), revision: '1', uid: 'uid-new' },
      ctx,
    );
    expect(change).toMatchObject({ type: 'deleted', revision: 2, entry: { value: 'a1' } });
    expect(run([{ op: 'delete', key: key('a') }], base).entries.size).toBe(0);
  });
});
