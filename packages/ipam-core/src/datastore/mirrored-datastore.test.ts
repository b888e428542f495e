import { afterEach, describe, expect, it, vi } from 'vitest';
import { newBlock } from '../block/new-block.js';
import { IpamError } from '../errors.js';
import type { DatastoreKey, ListOptions } from '../model/keys.js';
import type { Datastore, KVPair } from './datastore.js';
import { createMemoryDatastore } from './memory-datastore.js';
import type { MirroredDatastore, MirroredDatastoreOptions } from './mirrored-datastore.js';
import { DEFAULT_MIRRORED_KINDS } from './mirror-scope.js';
import { createMirroredDatastore } from './mirrored-datastore.js';
import { createControlledDatastore } from './test-controlled-datastore.js';
import { createManualTimers } from './test-manual-timers.js';

const nodeKey = (name: string): DatastoreKey<'Node'> => ({ kind: 'Node', name });
const poolKey = (name: string): DatastoreKey<'IPPool'> => ({ kind: 'IPPool', name });
const node = (name: string, zone = 'a') => ({
  key: nodeKey(name),
  value: { metadata: { name, labels: { zone } }, spec: {} },
});
const pool = (name: string, cidr = '10.0.0.0/16') => ({
  key: poolKey(name),
  value: { metadata: { name }, spec: { cidr } },
});
const relabel = (kv: KVPair<'Node'>, zone: string): KVPair<'Node'> => ({
  ...kv,
  value: { ...kv.value, metadata: { ...kv.value.metadata, labels: { zone } } },
});
const affinity = (host: string, cidr: string) => ({
  key: { kind: 'BlockAffinity', host, cidr, affinityType: 'host' } as const,
  value: { state: 'confirmed', deleted: false } as const,
});

async function expectCode(p: Promise<unknown>, code: IpamError['code']): Promise<void> {
  await expect(p).rejects.toBeInstanceOf(IpamError);
  await expect(p).rejects.toMatchObject({ code });
}

const opened: Datastore[] = [];
afterEach(async () => {
  for (const ds of opened.splice(0)) await ds.close();
});

/** A memory store (`store`: what another client writes to), a controlled wrapper, a mirror over it. */
function setup(options: MirroredDatastoreOptions = {}) {
  const store = createMemoryDatastore();
  const inner = createControlledDatastore(store);
  const mirror: MirroredDatastore = createMirroredDatastore(inner, { retryDelayMs: 1, ...options });
  opened.push(mirror);
  return { store, inner, mirror };
}

describe('mirrored datastore: reads', () => {
  it('syncs on the first read with one listMany, then serves mirrored kinds from memory', async () => {
    const { store, inner, mirror } = setup();
    const n1 = await store.create(node('n1'));
    await store.create({
      key: { kind: 'IPAMHandle', handleId: 'h' },
      value: { handleId: 'h', block: {}, deleted: false },
    });
    expect(mirror.isSynced()).toBe(false);
    expect(await mirror.get(nodeKey('n1'))).toMatchObject({ revision: n1.revision });
    expect(mirror.isSynced()).toBe(true);
    expect(inner.listManyCalls).toEqual([[...DEFAULT_MIRRORED_KINDS]]);
    await mirror.get(nodeKey('n1'));
    expect((await mirror.list({ kind: 'Node' })).items).toEqual([n1]);
    expect(inner.count('get', 'Node')).toBe(0);
    expect(inner.count('list', 'Node')).toBe(0);
    // Unmirrored kinds go to the store.
    expect((await mirror.list({ kind: 'IPAMHandle' })).items).toHaveLength(1);
    expect(inner.count('list', 'IPAMHandle')).toBe(1);
  });

  it('answers a missing key with the store’s DoesNotExist error', async () => {
    const { store, inner, mirror } = setup();
    const fromMirror = await mirror.get(poolKey('nope')).catch((e: unknown) => e);
    const fromStore = await store.get(poolKey('nope')).catch((e: unknown) => e);
    expect(fromMirror).toBeInstanceOf(IpamError);
    expect(fromMirror).toMatchObject({
      code: 'DoesNotExist',
      message: (fromStore as IpamError).message,
      identifier: (fromStore as IpamError).identifier,
    });
    expect(inner.count('get', 'IPPool')).toBe(0);
  });

  it('shows another client’s write once the watch delivers it', async () => {
    const { store, inner, mirror } = setup();
    await mirror.list({ kind: 'Node' });
    inner.pause();
    const n2 = await store.create(node('n2'));
    await expectCode(mirror.get(nodeKey('n2')), 'DoesNotExist'); // from memory: not seen yet
    inner.resume();
    await vi.waitFor(async () =>
      expect((await mirror.get(nodeKey('n2'))).revision).toBe(n2.revision),
    );
    expect(inner.count('get', 'Node')).toBe(0);
  });

  it('reports the revision the watch has reached; own writes do not move it', async () => {
    const { store, inner, mirror } = setup({ kinds: ['Node'] });
    const synced = await mirror.list({ kind: 'Node' });
    const n1 = await store.create(node('n1'));
    await vi.waitFor(async () =>
      expect((await mirror.list({ kind: 'Node' })).revision).toBe(n1.revision),
    );
    expect(BigInt(n1.revision)).toBeGreaterThan(BigInt(synced.revision));
    inner.pause();
    const n2 = await mirror.create(node('n2'));
    const { items, revision } = await mirror.list({ kind: 'Node' });
    expect(items).toEqual([n1, n2]);
    expect(revision).toBe(n1.revision);
    // A watch from it skips nothing the mirror has not seen from the store.
    for await (const e of store.watch({ kind: 'Node' }, { revision })) {
      expect(e).toMatchObject({ type: 'added', revision: n2.revision });
      break;
    }
  });

  it('listMany serves mirrored lists from memory and sends the rest to the store in one call', async () => {
    const { store, inner, mirror } = setup();
    await store.create(pool('p'));
    await store.create(node('node1'));
    await store.create(affinity('node1', '10.0.0.0/26'));
    await store.create(affinity('node10', '10.0.0.64/26'));
    await store.create({
      key: { kind: 'IPAMBlock', cidr: '10.0.0.0/26' },
      value: newBlock({ cidr: '10.0.0.0/26', sequenceNumber: 1n, affinity: 'host:node1' }),
    });
    await mirror.list({ kind: 'IPPool' });
    const options: ListOptions[] = [
      { kind: 'IPPool' },
      { kind: 'IPAMHandle' },
      { kind: 'BlockAffinity', host: 'node1' },
      { kind: 'IPAMBlock', ipVersion: 4 },
      { kind: 'IPAMConfig' },
    ];
    const got = await mirror.listMany!(options);
    const want = await store.listMany!(options);
    expect(got.map((r) => r.items)).toEqual(want.map((r) => r.items));
    expect(inner.listManyCalls).toEqual([[...DEFAULT_MIRRORED_KINDS], ['IPAMHandle', 'IPAMBlock']]);
    expect(new Set([got[0]!.revision, got[2]!.revision, got[4]!.revision]).size).toBe(1);
    await mirror.listMany!([{ kind: 'IPPool' }, { kind: 'Node' }]);
    expect(inner.listManyCalls).toHaveLength(2);
  });
});

describe('mirrored datastore: scoped lists', () => {
  const mine: ListOptions = { kind: 'BlockAffinity', host: 'h1' };

  it('mirrors only what its list matches; reads it covers come from memory, others from the store', async () => {
    const { store, inner, mirror } = setup({ lists: [{ kind: 'IPPool' }, mine] });
    const a1 = await store.create(affinity('h1', '10.0.0.0/26'));
    const a2 = await store.create(affinity('h2', '10.0.0.64/26'));
    expect((await mirror.list(mine)).items).toEqual([a1]);
    expect(inner.count('list', 'BlockAffinity')).toBe(0); // the sync's listMany
    expect(await mirror.get(a1.key)).toEqual(a1);
    expect(
      (await mirror.list({ kind: 'BlockAffinity', host: 'h1', affinityType: 'host' })).items,
    ).toEqual([a1]);
    expect(inner.count('get', 'BlockAffinity')).toBe(0);
    expect(inner.count('list', 'BlockAffinity')).toBe(0);
    // Another host's affinity, and every host's, are the store's to answer.
    expect(await mirror.get(a2.key)).toEqual(a2);
    expect((await mirror.list({ kind: 'BlockAffinity' })).items).toEqual([a1, a2]);
    expect(inner.count('get', 'BlockAffinity')).toBe(1);
    expect(inner.count('list', 'BlockAffinity')).toBe(1);
    // A kind not listed at all passes through too.
    await mirror.list({ kind: 'Node' });
    expect(inner.count('list', 'Node')).toBe(1);
  });

  it('follows its own host through the watch and ignores other hosts', async () => {
    const { store, inner, mirror } = setup({ lists: [mine] });
    await mirror.list(mine);
    const a3 = await store.create(affinity('h1', '10.0.1.0/26'));
    await store.create(affinity('h2', '10.0.2.0/26'));
    await vi.waitFor(async () => expect((await mirror.list(mine)).items).toEqual([a3]));
    await store.delete(a3.key);
    await vi.waitFor(async () => expect((await mirror.list(mine)).items).toEqual([]));
    expect(inner.count('list', 'BlockAffinity')).toBe(0);
  });

  it('learns its own writes within its list only', async () => {
    const { inner, mirror } = setup({ lists: [mine] });
    await mirror.list(mine);
    inner.pause(); // nothing from the watch: what the mirror shows comes from the writes
    const own = await mirror.create(affinity('h1', '10.0.3.0/26'));
    await mirror.create(affinity('h2', '10.0.4.0/26'));
    expect((await mirror.list(mine)).items).toEqual([own]);
    expect(await mirror.get(own.key)).toEqual(own);
    expect(inner.count('get', 'BlockAffinity')).toBe(0);
  });

  it.each<[string, MirroredDatastoreOptions]>([
    ['two lists of one kind', { lists: [mine, { kind: 'BlockAffinity', host: 'h2' }] }],
    ['kinds and lists together', { kinds: ['Node'], lists: [mine] }],
  ])('refuses %s', (_, options) => {
    expect(() => createMirroredDatastore(createMemoryDatastore(), options)).toThrow(
      expect.objectContaining({ code: 'InvalidArgument' }),
    );
  });
});

describe('mirrored datastore: writes', () => {
  it('shows this client’s own writes at once, before the watch delivers them', async () => {
    const { inner, mirror } = setup();
    await mirror.list({ kind: 'IPPool' });
    inner.pause();
    const created = await mirror.create(pool('p'));
    expect(await mirror.get(poolKey('p'))).toEqual(created);
    const updated = await mirror.update({
      ...created,
      value: { ...created.value, spec: { cidr: '10.1.0.0/16' } },
    });
    expect((await mirror.get(poolKey('p'))).value.spec.cidr).toBe('10.1.0.0/16');
    expect((await mirror.list({ kind: 'IPPool' })).items).toEqual([updated]);
    await mirror.delete(poolKey('p'), { revision: updated.revision });
    await expectCode(mirror.get(poolKey('p')), 'DoesNotExist');
    expect((await mirror.list({ kind: 'IPPool' })).items).toEqual([]);
    expect(inner.count('get', 'IPPool')).toBe(0);
    expect(inner.count('create', 'IPPool')).toBe(1);
  });

  it('a late watch event does not overwrite a newer write', async () => {
    const { store, inner, mirror } = setup({ kinds: ['Node'] });
    const n1 = await store.create(node('n1'));
    await mirror.list({ kind: 'Node' });
    inner.pause();
    const v1 = await mirror.update(relabel(n1, 'b'));
    const v2 = await mirror.update(relabel(v1, 'c'));
    inner.allow(1); // the event of v1 only
    await vi.waitFor(() => expect(inner.delivered).toBe(1));
    expect(await mirror.get(nodeKey('n1'))).toMatchObject({
      revision: v2.revision,
      value: { metadata: { labels: { zone: 'c' } } },
    });
  });

  it.each([
    ['at a revision', true],
    ['without a revision', false],
  ])(
    'a delete %s leaves a tombstone: a late event does not bring the key back, a re-create does',
    async (_, withRevision) => {
      const { store, inner, mirror } = setup({ kinds: ['Node'] });
      await mirror.list({ kind: 'Node' });
      inner.pause();
      const v1 = await mirror.create(node('n1'));
      await mirror.delete(nodeKey('n1'), withRevision ? { revision: v1.revision } : {});
      inner.allow(1); // the late 'added' of v1
      await vi.waitFor(() => expect(inner.delivered).toBe(1));
      await expectCode(mirror.get(nodeKey('n1')), 'DoesNotExist');
      expect((await mirror.list({ kind: 'Node' })).items).toEqual([]);
      const again = await store.create(node('n1', 'b'));
      inner.resume();
      await vi.waitFor(async () =>
        expect((await mirror.get(nodeKey('n1'))).revision).toBe(again.revision),
      );
    },
  );

  it.each([
    [
      'UpdateConflict (another client updated the key)',
      async (store: Datastore, mirror: Datastore) => {
        const seen = await mirror.get(nodeKey('n1'));
        const newer = await store.update(relabel(seen, 'b'));
        await expectCode(mirror.update(relabel(seen, 'c')), 'UpdateConflict');
        return newer.revision;
      },
    ],
    [
      'UpdateConflict on a delete at a stale revision',
      async (store: Datastore, mirror: Datastore) => {
        const seen = await mirror.get(nodeKey('n1'));
        const newer = await store.update(relabel(seen, 'b'));
        await expectCode(
          mirror.delete(nodeKey('n1'), { revision: seen.revision }),
          'UpdateConflict',
        );
        return newer.revision;
      },
    ],
    [
      'AlreadyExists (another client created the key)',
      async (store: Datastore, mirror: Datastore) => {
        const other = await store.create(node('n2'));
        await expectCode(mirror.get(nodeKey('n2')), 'DoesNotExist');
        await expectCode(mirror.create(node('n2')), 'AlreadyExists');
        return other.revision;
      },
      'n2',
    ],
    [
      'DoesNotExist (another client deleted the key)',
      async (store: Datastore, mirror: Datastore) => {
        const seen = await mirror.get(nodeKey('n1'));
        await store.delete(nodeKey('n1'));
        await expectCode(mirror.update(relabel(seen, 'b')), 'DoesNotExist');
        return undefined;
      },
    ],
  ])(
    'a write failing %s refreshes its key from the store first',
    async (_, conflict, name = 'n1') => {
      const { store, inner, mirror } = setup();
      await store.create(node('n1'));
      await mirror.list({ kind: 'Node' });
      inner.pause(); // only the refresh can tell the mirror
      const expected = await conflict(store, mirror);
      const got = mirror.get(nodeKey(name));
      if (expected === undefined) await expectCode(got, 'DoesNotExist');
      else expect((await got).revision).toBe(expected);
      expect(inner.count('get', 'Node')).toBe(1);
    },
  );
});

describe('mirrored datastore: failures', () => {
  type Inner = ReturnType<typeof setup>['inner'];
  it.each([
    [
      'every watch throws WatchExpired',
      (c: Inner) => c.breakWatches(new IpamError('WatchExpired', 'compacted')),
    ],
    [
      'every watch throws Unavailable',
      (c: Inner) => c.breakWatches(new IpamError('Unavailable', 'etcd gone')),
    ],
    ['every watch ends', (c: Inner) => c.endWatches()],
    // One kind's watch failing stops the others too: the mirror re-syncs as a whole.
    [
      'one kind’s watch throws',
      (c: Inner) => c.breakWatches(new IpamError('Unavailable', 'etcd gone'), 'IPAMConfig'),
    ],
    ['one kind’s watch ends', (c: Inner) => c.endWatches('BlockAffinity')],
  ])('%s: reads go to the store until a re-sync', async (_, breakIt) => {
    const timers = createManualTimers();
    const fallbacks: unknown[] = [];
    const { store, inner, mirror } = setup({
      timers,
      retryDelayMs: 50,
      onFallback: (e) => fallbacks.push(e),
    });
    const n1 = await store.create(node('n1'));
    await store.create(node('gone'));
    await mirror.list({ kind: 'Node' });
    breakIt(inner);
    await vi.waitFor(() => expect(mirror.isSynced()).toBe(false));
    expect(fallbacks).toHaveLength(1);
    expect(timers.pending()).toEqual([50]);
    await vi.waitFor(() => expect(inner.openWatches).toBe(0));

    // Changes made meanwhile: the store answers.
    await store.delete(nodeKey('gone'));
    const n1b = await store.update(relabel(n1, 'b'));
    expect((await mirror.get(nodeKey('n1'))).revision).toBe(n1b.revision);
    expect(inner.count('get', 'Node')).toBe(1);
    await store.create(node('n2'));
    expect((await mirror.list({ kind: 'Node' })).items).toHaveLength(2);
    expect(inner.count('list', 'Node')).toBe(1);

    timers.fire();
    await vi.waitFor(() => expect(mirror.isSynced()).toBe(true));
    expect(inner.listManyCalls).toHaveLength(2);
    expect(inner.openWatches).toBe(DEFAULT_MIRRORED_KINDS.length);
    expect((await mirror.get(nodeKey('n1'))).revision).toBe(n1b.revision);
    await expectCode(mirror.get(nodeKey('gone')), 'DoesNotExist'); // deleted before the list
    expect((await mirror.list({ kind: 'Node' })).items).toHaveLength(2);
    expect(inner.count('get', 'Node')).toBe(1);
    expect(inner.count('list', 'Node')).toBe(1);
    // Followed again: a later change arrives through the new watch.
    const n3 = await store.create(node('n3'));
    await vi.waitFor(async () =>
      expect((await mirror.get(nodeKey('n3'))).revision).toBe(n3.revision),
    );
  });

  it('a failed first sync sends reads to the store and retries with bounded backoff', async () => {
    const timers = createManualTimers();
    const { store, inner, mirror } = setup({ timers, retryDelayMs: 100, maxRetryDelayMs: 350 });
    const n1 = await store.create(node('n1'));
    inner.failLists = true;
    expect((await mirror.get(nodeKey('n1'))).revision).toBe(n1.revision);
    expect(inner.count('get', 'Node')).toBe(1);
    for (let i = 0; i < 3; i++) {
      timers.fire();
      await vi.waitFor(() => expect(timers.pending()).toHaveLength(1));
      expect(mirror.isSynced()).toBe(false);
    }
    expect(timers.requested).toEqual([100, 200, 350, 350]);
    inner.failLists = false;
    timers.fire();
    await vi.waitFor(() => expect(mirror.isSynced()).toBe(true));
    await mirror.get(nodeKey('n1'));
    expect(inner.count('get', 'Node')).toBe(1);
  });

  it('a watch that delivers starts the backoff afresh: the next failure waits the first delay', async () => {
    const timers = createManualTimers();
    const { store, inner, mirror } = setup({ timers, retryDelayMs: 100, maxRetryDelayMs: 350 });
    await store.create(node('n0'));
    inner.failLists = true;
    await mirror.get(nodeKey('n0'));
    timers.fire();
    await vi.waitFor(() => expect(timers.pending()).toHaveLength(1));
    inner.failLists = false;
    timers.fire();
    await vi.waitFor(() => expect(mirror.isSynced()).toBe(true));
    const n1 = await store.create(node('n1'));
    await vi.waitFor(async () =>
      expect((await mirror.list({ kind: 'Node' })).items).toContainEqual(n1),
    );
    inner.breakWatches(new IpamError('Unavailable', 'gone'));
    await vi.waitFor(() => expect(timers.pending()).toHaveLength(1));
    expect(timers.requested).toEqual([100, 200, 100]);
  });

  it('a write of a mirrored kind while the first sync is in flight is not lost', async () => {
    const { inner, mirror } = setup();
    const first = mirror.list({ kind: 'IPPool' }); // the sync's listMany is under way
    const created = await mirror.create(pool('p'));
    await first;
    inner.pause();
    expect(await mirror.get(poolKey('p'))).toEqual(created);
  });

  it('close stops the watches and a pending re-sync, and closes the store', async () => {
    const timers = createManualTimers();
    const { inner, mirror } = setup({ timers });
    await mirror.list({ kind: 'Node' });
    expect(inner.openWatches).toBe(DEFAULT_MIRRORED_KINDS.length);
    inner.failLists = true;
    inner.breakWatches(new IpamError('Unavailable', 'gone'));
    await vi.waitFor(() => expect(timers.pending()).toHaveLength(1));
    await mirror.close();
    expect(timers.pending()).toEqual([]);
    expect(inner.closed).toBe(true);
    await expectCode(mirror.get(nodeKey('n1')), 'Unavailable');
  });

  it('close leaves no timer or watch behind (global timers)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const { inner, mirror } = setup({ timers: undefined, retryDelayMs: 60_000 });
      await mirror.list({ kind: 'Node' });
      inner.breakWatches(new IpamError('Unavailable', 'gone'));
      for (let i = 0; i < 20 && vi.getTimerCount() === 0; i++)
        await new Promise((r) => setImmediate(r));
      expect(vi.getTimerCount()).toBe(1);
      await mirror.close();
      expect(vi.getTimerCount()).toBe(0);
      expect(inner.openWatches).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('close during the first sync drops its result and opens no watch', async () => {
    const { inner, mirror } = setup();
    const read = mirror.list({ kind: 'Node' }).catch((e: unknown) => e);
    await mirror.close();
    await read;
    await new Promise((r) => setImmediate(r));
    expect(inner.openWatches).toBe(0);
    expect(mirror.isSynced()).toBe(false);
  });
});
