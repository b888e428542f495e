import { createMemoryDatastore } from '@netledger/ipam-core';
import type { Datastore } from '@netledger/ipam-core';
import { describe, expect, it } from 'vitest';
import { createPresumingDatastore } from './handle-presumption.js';

const handle = (handleId: string) => ({ kind: 'IPAMHandle' as const, handleId });
const value = (handleId: string) => ({ handleId, block: { '10.0.0.0/26': 1 }, deleted: false });

async function withHandle(ds: Datastore, handleId: string): Promise<void> {
  await ds.create({ key: handle(handleId), value: value(handleId) });
}

describe('createPresumingDatastore', () => {
  it('answers a read of the presumed handle without the store, and a create confirms it', async () => {
    const inner = createMemoryDatastore();
    const { datastore, presume } = createPresumingDatastore(inner);
    const { value: created, presumption } = await presume('net.c1', async () => {
      await expect(datastore.get(handle('net.c1'))).rejects.toMatchObject({
        code: 'DoesNotExist',
      });
      return datastore.create({ key: handle('net.c1'), value: value('net.c1') });
    });
    expect(presumption).toEqual({ handleId: 'net.c1', consulted: true, outcome: 'confirmed' });
    expect((await inner.get(handle('net.c1'))).revision).toBe(created.revision);
    // Decided: later reads in the same request go to the store.
    await presume('net.c1', async () => {
      await datastore.create({ key: handle('other'), value: value('other') });
    });
  });

  it('refutes it when the handle exists: the create throws and the store keeps its handle', async () => {
    const inner = createMemoryDatastore();
    await withHandle(inner, 'net.c1');
    const before = await inner.get(handle('net.c1'));
    const { datastore, presume } = createPresumingDatastore(inner);
    const { presumption } = await presume('net.c1', async () => {
      await expect(datastore.get(handle('net.c1'))).rejects.toMatchObject({
        code: 'DoesNotExist',
      });
      const e: unknown = await datastore
        .create({ key: handle('net.c1'), value: value('net.c1') })
        .catch((x: unknown) => x);
      // Not an IpamError: no caller may take it for AlreadyExists and update the handle.
      expect(e).toMatchObject({ name: 'PresumptionRefuted' });
      expect(e).not.toHaveProperty('code');
      // Refuted: the store answers from now on.
      expect((await datastore.get(handle('net.c1'))).revision).toBe(before.revision);
    });
    expect(presumption).toMatchObject({ consulted: true, outcome: 'refuted' });
    expect(await inner.get(handle('net.c1'))).toEqual(before);
  });

  it('touches nothing outside presume, nor other handles or kinds within it', async () => {
    const inner = createMemoryDatastore();
    await withHandle(inner, 'net.c1');
    await withHandle(inner, 'net.c2');
    const { datastore, presume } = createPresumingDatastore(inner);
    expect((await datastore.get(handle('net.c1'))).value.handleId).toBe('net.c1');
    const { presumption } = await presume('net.c1', async () => {
      expect((await datastore.get(handle('net.c2'))).value.handleId).toBe('net.c2');
      await expect(
        datastore.create({ key: handle('net.c2'), value: value('net.c2') }),
      ).rejects.toMatchObject({ code: 'AlreadyExists' });
      expect((await datastore.list({ kind: 'IPAMHandle' })).items).toHaveLength(2);
    });
    expect(presumption).toEqual({ handleId: 'net.c1', consulted: false, outcome: 'untested' });
  });

  it('keeps concurrent requests apart: each sees its own presumption only', async () => {
    const inner = createMemoryDatastore();
    await withHandle(inner, 'net.a');
    const { datastore, presume } = createPresumingDatastore(inner);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const a = presume('net.a', async () => {
      await gate;
      return datastore.get(handle('net.a')).catch((e: unknown) => e);
    });
    const b = presume('net.b', async () => {
      const seen = await datastore.get(handle('net.a'));
      release();
      return seen;
    });
    expect((await b).value).toMatchObject({ value: { handleId: 'net.a' } });
    expect((await a).value).toMatchObject({ code: 'DoesNotExist' });
  });

  it('decides it by a transaction that creates the handle, refuted only by the handle itself', async () => {
    const inner = createMemoryDatastore();
    const { datastore, presume } = createPresumingDatastore(inner);
    const created = await presume('net.c1', () =>
      datastore.transact!([
        { op: 'create', kv: { key: handle('net.c1'), value: value('net.c1') } },
      ]),
    );
    expect(created.presumption.outcome).toBe('confirmed');
    await withHandle(inner, 'other');
    // An AlreadyExists about another key of the transaction passes through and decides nothing.
    const other = await presume('net.c2', async () => {
      await expect(
        datastore.transact!([
          { op: 'create', kv: { key: handle('net.c2'), value: value('net.c2') } },
          { op: 'create', kv: { key: handle('other'), value: value('other') } },
        ]),
      ).rejects.toMatchObject({ code: 'AlreadyExists' });
    });
    expect(other.presumption.outcome).toBe('untested');
    const refuted = await presume('net.c1', async () => {
      const e: unknown = await datastore.transact!([
        { op: 'create', kv: { key: handle('net.c1'), value: value('net.c1') } },
      ]).catch((x: unknown) => x);
      expect(e).toMatchObject({ name: 'PresumptionRefuted' });
    });
    expect(refuted.presumption.outcome).toBe('refuted');
    await expect(inner.get(handle('net.c2'))).rejects.toMatchObject({ code: 'DoesNotExist' });
  });

  it('observe presumes nothing and says whether the work created the handle', async () => {
    const inner = createMemoryDatastore();
    await withHandle(inner, 'net.old');
    const { datastore, observe } = createPresumingDatastore(inner);
    const fresh = await observe('net.new', async () => {
      await expect(datastore.get(handle('net.new'))).rejects.toMatchObject({
        code: 'DoesNotExist',
      });
      return datastore.transact!([
        { op: 'create', kv: { key: handle('net.new'), value: value('net.new') } },
      ]);
    });
    expect(fresh.created).toBe(true);
    // A handle that was there: read from the store, and its create fails as the store says.
    const old = await observe('net.old', async () => {
      expect((await datastore.get(handle('net.old'))).value.handleId).toBe('net.old');
      await expect(
        datastore.create({ key: handle('net.old'), value: value('net.old') }),
      ).rejects.toMatchObject({ code: 'AlreadyExists' });
    });
    expect(old.created).toBe(false);
    expect((await observe('net.none', async () => undefined)).created).toBe(false);
  });
});
