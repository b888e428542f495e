import type { DatastoreKey, TransactionWrite } from '@netledger/ipam-core';
import { BlockBuilder } from '@netledger/testkit';
import { describe, expect, it } from 'vitest';
import type { KvKeyValue } from './etcd-kv.js';
import { planTransaction, transactionFailure, transactionResults } from './transaction-plan.js';

const handleKey = (id: string): DatastoreKey<'IPAMHandle'> => ({
  kind: 'IPAMHandle',
  handleId: id,
});
const handle = (id: string) => ({
  key: handleKey(id),
  value: { handleId: id, block: {}, deleted: false },
});
const path = (id: string) => `/calico/ipam/v2/handle/${id}`;
const stored = (id: string, mod: string, create = mod): KvKeyValue => ({
  key: Buffer.from(path(id)),
  create_revision: create,
  mod_revision: mod,
  version: '1',
  value: Buffer.from('{}'),
  lease: '0',
});

describe('planTransaction', () => {
  it("sends the single calls' compares, the writes as the success branch, a range per key as the failure branch", () => {
    const plan = planTransaction([
      { op: 'create', kv: handle('a') },
      { op: 'update', kv: { ...handle('b'), revision: '7' } },
      { op: 'delete', key: handleKey('c'), options: { revision: '8', uid: '3' } },
      { op: 'delete', key: handleKey('d') },
    ]);
    const key = (id: string) => Buffer.from(path(id));
    expect(plan.request.compare).toEqual([
      { key: key('a'), target: 'Version', result: 'Equal', version: 0 },
      { key: key('b'), target: 'Mod', result: 'Equal', mod_revision: '7' },
      { key: key('c'), target: 'Version', result: 'Greater', version: 0 },
      { key: key('c'), target: 'Mod', result: 'Equal', mod_revision: '8' },
      { key: key('c'), target: 'Create', result: 'Equal', create_revision: '3' },
      { key: key('d'), target: 'Version', result: 'Greater', version: 0 },
    ]);
    expect(plan.request.success).toEqual([
      { request_put: { key: key('a'), value: Buffer.from('{"block":{},"deleted":false}') } },
      {
        request_put: {
          key: key('b'),
          value: Buffer.from('{"block":{},"deleted":false}'),
          prev_kv: true,
        },
      },
      { request_delete_range: { key: key('c') } },
      { request_delete_range: { key: key('d') } },
    ]);
    expect(plan.request.failure).toEqual(
      ['a', 'b', 'c', 'd'].map((id) => ({ request_range: { key: key(id) } })),
    );
  });

  it.each<[string, TransactionWrite[]]>([
    [
      'two writes to one key',
      [
        { op: 'create', kv: handle('a') },
        { op: 'delete', key: handleKey('a') },
      ],
    ],
    [
      'a revision that is not an etcd revision',
      [{ op: 'update', kv: { ...handle('a'), revision: '0' } }],
    ],
    [
      'a uid that is not an etcd revision',
      [{ op: 'delete', key: handleKey('a'), options: { uid: 'x' } }],
    ],
    [
      'a value no read could decode',
      [
        {
          op: 'create',
          kv: {
            key: { kind: 'IPAMBlock', cidr: '10.0.0.0/30' },
            value: new BlockBuilder('10.0.0.4/30').build(),
          },
        },
      ],
    ],
  ])('refuses %s with InvalidArgument', (_what, writes) => {
    expect(() => planTransaction([{ op: 'create', kv: handle('ok') }, ...writes])).toThrow(
      expect.objectContaining({ code: 'InvalidArgument' }),
    );
  });
});

describe('transactionFailure', () => {
  const plan = planTransaction([
    { op: 'create', kv: handle('a') },
    { op: 'update', kv: { ...handle('b'), revision: '7' } },
    { op: 'delete', key: handleKey('c'), options: { revision: '8', uid: '3' } },
  ]);
  it.each<[string, (KvKeyValue | undefined)[], string, string]>([
    [
      'the create finds its key',
      [stored('a', '2'), undefined, undefined],
      'AlreadyExists',
      path('a'),
    ],
    ['the update finds no key', [undefined, undefined, undefined], 'DoesNotExist', path('b')],
    [
      'the update finds another revision',
      [undefined, stored('b', '9'), undefined],
      'UpdateConflict',
      path('b'),
    ],
    [
      'the delete finds no key',
      [undefined, stored('b', '7'), undefined],
      'DoesNotExist',
      path('c'),
    ],
    [
      'the delete finds another revision',
      [undefined, stored('b', '7'), stored('c', '9', '3')],
      'UpdateConflict',
      path('c'),
    ],
    [
      'the delete finds another uid',
      [undefined, stored('b', '7'), stored('c', '8', '4')],
      'UpdateConflict',
      path('c'),
    ],
  ])('names the first failing write: %s', (_what, current, code, identifier) => {
    expect(transactionFailure(plan, current)).toMatchObject({ code, identifier });
  });

  it('is Unavailable when every precondition holds (not an answer etcd gives)', () => {
    expect(
      transactionFailure(plan, [undefined, stored('b', '7'), stored('c', '8', '3')]),
    ).toMatchObject({
      code: 'Unavailable',
    });
  });
});

describe('transactionResults', () => {
  it('gives every create and update the revision, the uid its create revision; deletes undefined', () => {
    const plan = planTransaction([
      { op: 'create', kv: handle('a') },
      { op: 'update', kv: { ...handle('b'), revision: '7' } },
      { op: 'delete', key: handleKey('c') },
    ]);
    expect(
      transactionResults(plan, { revision: '12', createRevisions: [undefined, '4', undefined] }),
    ).toEqual([
      { ...handle('a'), revision: '12', uid: '12' },
      { ...handle('b'), revision: '12', uid: '4' },
      undefined,
    ]);
  });
});
