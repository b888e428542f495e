import { describe, expect, it } from 'vitest';
import { TestBlockBuilder } from '../block/test-block-builder.js';
import type { DatastoreKey } from '../model/keys.js';
import { createMemoryDatastore } from './memory-datastore.js';

// The size limit every store enforces (issue 26, item 8): the memory store keeps values decoded,
// yet refuses what the file, etcd and Kubernetes stores could not hold.
describe('memory datastore: object size', () => {
  const cidr = '10.0.0.0/26';
  const key: DatastoreKey<'IPAMBlock'> = { kind: 'IPAMBlock', cidr };
  const blockWithPod = (pod: string) =>
    new TestBlockBuilder(cidr).affine('node1').allocate([0], 'h1', { pod }).build();
  const tooBig = blockWithPod('p'.repeat(1.5 * 1024 * 1024));

  it('refuses a create, update, apply or transaction whose value encodes to over 1.5 MiB, changing nothing', async () => {
    const ds = createMemoryDatastore();
    const small = await ds.create({ key, value: blockWithPod('p') });
    const refusals = [
      ds.create({
        key: { kind: 'IPAMBlock', cidr: '10.0.1.0/26' },
        value: { ...tooBig, cidr: '10.0.1.0/26' },
      }),
      ds.update({ ...small, value: tooBig }),
      ds.apply({ key, value: tooBig }),
      ds.transact!([{ op: 'update', kv: { ...small, value: tooBig } }]),
    ];
    for (const p of refusals) {
      await expect(p).rejects.toMatchObject({
        code: 'InvalidArgument',
        message: expect.stringMatching(
          /^refusing to write \/calico\/ipam\/v2\/assignment\/ipv4\/block\/10\.0\.[01]\.0-26: encoded it is at least \d+ bytes, over the limit of 1572864 bytes/,
        ) as unknown,
      });
    }
    const { items, revision } = await ds.list({ kind: 'IPAMBlock' });
    expect(items).toEqual([small]);
    expect(revision).toBe(small.revision);
  });
});
