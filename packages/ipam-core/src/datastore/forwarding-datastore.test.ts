import { describe, expect, it } from 'vitest';
import { forwardingDatastore } from './forwarding-datastore.js';
import { createMemoryDatastore } from './memory-datastore.js';

describe('forwardingDatastore', () => {
  it('passes every call on, the optional ones exactly when the store has them', async () => {
    const inner = createMemoryDatastore();
    const ds = forwardingDatastore(inner);
    const key = { kind: 'IPAMHandle', handleId: 'h' } as const;
    const [created] = await ds.transact!([
      { op: 'create', kv: { key, value: { handleId: 'h', block: {}, deleted: false } } },
    ]);
    expect((await inner.get(key)).revision).toBe(created!.revision);
    expect((await ds.listMany!([{ kind: 'IPAMHandle' }]))[0]!.items).toHaveLength(1);
    expect(ds.upgradeAffinityLabels).toBeUndefined();

    const { transact: _t, listMany: _l, ...plain } = inner;
    const bare = forwardingDatastore(plain);
    expect(bare.transact).toBeUndefined();
    expect(bare.listMany).toBeUndefined();
    expect((await bare.get(key)).revision).toBe(created!.revision);
  });
});
