import type { Datastore } from '@netledger/ipam-core';
import { describe, expect, it } from 'vitest';
import { memoryStore } from '../test-support/seed.js';
import type { ReportHandle } from './check-report.js';
import { deleteLeakedHandles } from './delete-leaked-handles.js';

const handle = (handleId: string) => ({
  key: { kind: 'IPAMHandle', handleId } as const,
  value: { handleId, block: {}, deleted: false },
});

describe('deleteLeakedHandles', () => {
  it('deletes unchanged handles, skips missing or changed ones, and counts errors', async () => {
    const { datastore } = memoryStore();
    const reported: ReportHandle[] = [];
    for (const id of ['same', 'changed', 'gone', 'broken']) {
      const kv = await datastore.create(handle(id));
      reported.push({ ID: id, UID: kv.uid ?? null, Revision: kv.revision });
    }
    const changed = await datastore.get(handle('changed').key);
    await datastore.update({ ...changed, value: { ...changed.value, deleted: true } });
    await datastore.delete(handle('gone').key);
    // A store that fails reading one handle (not a conflict, not missing).
    const failing: Datastore = Object.assign(Object.create(datastore) as Datastore, {
      get: ((key: { handleId?: string }) =>
        key.handleId === 'broken'
          ? Promise.reject(new Error('connection reset'))
          : datastore.get(key as never)) as Datastore['get'],
    });
    const marks: string[] = [];
    const r = await deleteLeakedHandles(failing, {
      handles: reported,
      progress: (t) => void marks.push(t),
    });
    expect(r).toEqual({
      lines: [
        'Deleting 4 handles...',
        "Key: '.' = Deleted OK; 'x' = skip, handle missing/changed.",
        '.xxE',
        'Released 1 handles; 2 skipped; 1 errors.',
      ],
      deleted: ['same'],
      failed: true,
    });
    expect(marks).toEqual(['.', 'x', 'x', 'E', '\n']);
    expect((await datastore.list({ kind: 'IPAMHandle' })).items.map((kv) => kv.key)).toEqual([
      handle('broken').key,
      handle('changed').key,
    ]);
  });

  it('says there is nothing to delete for no handles', async () => {
    const { datastore } = memoryStore();
    expect(await deleteLeakedHandles(datastore, { handles: [] })).toEqual({
      lines: ["Report didn't contain any handles to clean up."],
      deleted: [],
      failed: false,
    });
  });
});
