import { createMemoryDatastore } from '@netledger/ipam-core';
import type { Datastore, KVPair } from '@netledger/ipam-core';
import { BlockBuilder } from '@netledger/testkit';
import { describe, expect, it } from 'vitest';
import { countedDatastore } from './counted-datastore.js';
import { createWrittenVersions } from './written-versions.js';

const handleKey = { kind: 'IPAMHandle', handleId: 'net.c1' } as const;
const handle = (count: number) => ({
  handleId: 'net.c1',
  block: { '10.0.0.0/26': count },
  deleted: false,
});

function setup(): {
  store: Datastore;
  gets: () => number;
  versions: ReturnType<typeof createWrittenVersions>;
} {
  const store = createMemoryDatastore();
  let gets = 0;
  const counted = countedDatastore(store, (op) => {
    if (op === 'get') gets++;
  });
  return { store, gets: () => gets, versions: createWrittenVersions(counted) };
}

describe('createWrittenVersions', () => {
  it('answers a trusted read of what it wrote from memory, and any other read from the store', async () => {
    const { gets, versions } = setup();
    const ds = versions.datastore;
    const created = await ds.create({ key: handleKey, value: handle(1) });
    const trusted = await versions.trusting(() => ds.get(handleKey));
    expect(trusted.value).toMatchObject({ revision: created.revision, value: handle(1) });
    expect(trusted.outcome).toEqual({ answered: true, stale: false });
    expect(gets()).toBe(0);
    await ds.get(handleKey);
    expect(gets()).toBe(1);
    await ds.delete(handleKey, { revision: created.revision });
    await expect(versions.trusting(() => ds.get(handleKey))).rejects.toMatchObject({
      code: 'DoesNotExist',
    });
    expect(versions.size()).toBe(0);
  });

  it('reports a remembered version another writer replaced once a write built on it fails', async () => {
    const { store, versions } = setup();
    const ds = versions.datastore;
    const mine = await ds.create({ key: handleKey, value: handle(1) });
    // Another process writes the handle behind the agent's back.
    const theirs = await store.update({ ...mine, value: handle(2) });
    const { outcome } = await versions.trusting(async () => {
      const read: KVPair<'IPAMHandle'> = await ds.get<'IPAMHandle'>(handleKey);
      expect(read.revision).toBe(mine.revision);
      await expect(ds.update({ ...read, value: handle(0) })).rejects.toMatchObject({
        code: 'UpdateConflict',
      });
      // The retry reads the store.
      expect((await ds.get(handleKey)).revision).toBe(theirs.revision);
    });
    expect(outcome).toEqual({ answered: true, stale: true });
  });

  it('remembers what a transaction wrote, forgets what it deleted, and every key of one refused', async () => {
    const { store, gets, versions } = setup();
    const ds = versions.datastore;
    const blockKey = { kind: 'IPAMBlock', cidr: '10.0.0.0/26' } as const;
    const block = await store.create({
      key: blockKey,
      value: new BlockBuilder('10.0.0.0/26').build(),
    });
    const [mine] = await ds.transact!([
      { op: 'create', kv: { key: handleKey, value: handle(1) } },
      { op: 'update', kv: block },
    ]);
    const trusted = await versions.trusting(() => ds.get(handleKey));
    expect(trusted.value.revision).toBe(mine!.revision);
    expect(versions.size()).toBe(2);
    // Refused (the block's revision is stale): both keys are forgotten, and reads go to the store.
    await expect(
      ds.transact!([
        { op: 'delete', key: handleKey, options: { revision: mine!.revision } },
        { op: 'update', kv: block },
      ]),
    ).rejects.toMatchObject({ code: 'UpdateConflict' });
    expect(versions.size()).toBe(0);
    const before = gets();
    await versions.trusting(() => ds.get(handleKey));
    expect(gets()).toBe(before + 1);
    const fresh = await ds.get(blockKey);
    await ds.transact!([
      { op: 'delete', key: handleKey, options: { revision: mine!.revision } },
      { op: 'update', kv: fresh },
    ]);
    expect(versions.size()).toBe(1);
    expect((await versions.trusting(() => ds.get(blockKey))).outcome.answered).toBe(true);
  });

  it('forgets the oldest beyond its limit', async () => {
    const store = createMemoryDatastore();
    const versions = createWrittenVersions(store, 2);
    for (const id of ['a', 'b', 'c']) {
      await versions.datastore.create({
        key: { kind: 'IPAMHandle', handleId: id },
        value: { handleId: id, block: {}, deleted: false },
      });
    }
    expect(versions.size()).toBe(2);
    const { outcome } = await versions.trusting(() =>
      versions.datastore.get({ kind: 'IPAMHandle', handleId: 'a' }),
    );
    expect(outcome.answered).toBe(false);
  });
});
