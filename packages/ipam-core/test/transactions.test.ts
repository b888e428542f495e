// The assign and release paths on a store with transactions: one `transact` per block write, the
// handle counted in it, and the races on the handle or the block that a transaction can lose.
import { describe, expect, it } from 'vitest';
import type { Datastore, TransactionWrite } from '../src/datastore/datastore.js';
import { createTestCluster } from './test-cluster.js';

/** `inner` with its calls counted and a hook run once before the `nth` transaction. */
function withTransactionHook(inner: Datastore) {
  const calls: string[] = [];
  let hook: { nth: number; run: () => Promise<void> } | undefined;
  let transactions = 0;
  const count =
    <A extends unknown[], R>(name: string, f: (...a: A) => Promise<R>) =>
    (...a: A): Promise<R> => {
      calls.push(name);
      return f(...a);
    };
  const ds: Datastore = {
    create: count('create', (kv) => inner.create(kv)),
    update: count('update', (kv) => inner.update(kv)),
    apply: (kv) => inner.apply(kv),
    delete: count('delete', (key, o) => inner.delete(key, o)),
    get: (key) => inner.get(key),
    list: (o) => inner.list(o),
    watch: (o, w) => inner.watch(o, w),
    close: () => inner.close(),
    async transact(writes: readonly TransactionWrite[]) {
      calls.push(`transact:${writes.map((w) => w.op).join('+')}`);
      transactions++;
      if (hook && transactions === hook.nth) {
        const h = hook;
        hook = undefined;
        await h.run();
      }
      return inner.transact!(writes);
    },
  };
  return {
    ds,
    calls,
    before(nth: number, run: () => Promise<void>) {
      hook = { nth, run };
    },
  };
}

const handle = (ds: Datastore, id: string) => ds.get({ kind: 'IPAMHandle', handleId: id });

async function setUp() {
  const c = await createTestCluster({
    pools: [{ cidr: '10.0.0.0/26', blockSize: 28 }],
    hosts: ['a'],
  });
  const t = withTransactionHook(c.store);
  // The block exists and is affine: later assigns are one block write each.
  await c
    .direct()
    .autoAssign({ num4: 1, hostname: 'a', handleId: 'seed', intendedUse: 'Workload' });
  const [seeded] = await c.blocks();
  t.calls.length = 0;
  return { c, t, client: c.client(7, t.ds), block: seeded!.cidr };
}

describe('assign and release on a store with transactions', () => {
  it('counts a new handle and writes the block in one transaction, and releases in one', async () => {
    const { c, t, client, block } = await setUp();
    const { v4 } = await client.autoAssign({
      num4: 2,
      hostname: 'a',
      handleId: 'h',
      intendedUse: 'Workload',
    });
    expect(v4.ips).toHaveLength(2);
    expect(t.calls).toEqual(['transact:create+update']);
    expect((await handle(c.store, 'h')).value.block).toEqual({ [block]: 2 });
    t.calls.length = 0;
    await client.releaseByHandle('h');
    expect(t.calls).toEqual(['transact:update+delete']);
    await expect(handle(c.store, 'h')).rejects.toMatchObject({ code: 'DoesNotExist' });
    expect(await client.ipsByHandle('seed')).toHaveLength(1);
    expect(await c.invariantProblems()).toEqual([]);
  });

  it('adds to a handle that exists, and keeps the rest of a handle when one block is released', async () => {
    const { c, t, client, block } = await setUp();
    await client.assignIp({ ip: '10.0.0.40', hostname: 'a', handleId: 'h' });
    await client.autoAssign({ num4: 1, hostname: 'a', handleId: 'h', intendedUse: 'Workload' });
    expect((await handle(c.store, 'h')).value.block).toEqual({
      '10.0.0.32/28': 1,
      [block]: 1,
    });
    expect(t.calls.filter((x) => x.startsWith('transact'))).toEqual([
      'transact:create+update',
      'transact:create+update', // refused: the handle exists
      'transact:update+update',
    ]);
    t.calls.length = 0;
    await client.releaseByHandle('h');
    expect(t.calls).toEqual(['transact:update+update', 'transact:update+delete']);
    await expect(handle(c.store, 'h')).rejects.toMatchObject({ code: 'DoesNotExist' });
    expect(await c.invariantProblems()).toEqual([]);
  });

  it('a handle written by someone else before the transaction: counted on top of it', async () => {
    const { c, t, client, block } = await setUp();
    t.before(1, async () => {
      await c.direct().assignIp({ ip: '10.0.0.50', hostname: 'a', handleId: 'h' });
    });
    await client.autoAssign({ num4: 1, hostname: 'a', handleId: 'h', intendedUse: 'Workload' });
    expect((await handle(c.store, 'h')).value.block).toEqual({
      '10.0.0.48/28': 1,
      [block]: 1,
    });
    expect((await client.ipsByHandle('h')).sort()).toHaveLength(2);
  });

  it('a block written by someone else before the transaction: nothing counted twice, the retry assigns', async () => {
    const { c, t, client, block } = await setUp();
    t.before(1, async () => {
      await c
        .direct()
        .autoAssign({ num4: 1, hostname: 'a', handleId: 'other', intendedUse: 'Workload' });
    });
    const { v4 } = await client.autoAssign({
      num4: 1,
      hostname: 'a',
      handleId: 'h',
      intendedUse: 'Workload',
    });
    expect((await handle(c.store, 'h')).value.block).toEqual({ [block]: 1 });
    expect(await client.ipsByHandle('other')).not.toContain(v4.ips[0]!.split('/')[0]);
    expect(t.calls.filter((x) => x.startsWith('transact'))).toHaveLength(2);
    expect(await c.invariantProblems()).toEqual([]);
  });

  it('a handle changed or deleted before a release transaction: the release still completes', async () => {
    const { c, t, client } = await setUp();
    await client.autoAssign({ num4: 1, hostname: 'a', handleId: 'h', intendedUse: 'Workload' });
    t.before(2, async () => {
      // Someone releases the same handle first (a repeated DEL).
      await c.direct().releaseByHandle('h');
    });
    await client.releaseByHandle('h');
    await expect(handle(c.store, 'h')).rejects.toMatchObject({ code: 'DoesNotExist' });
    const attributes = (await c.blocks()).flatMap((b) => b.attributes);
    expect(attributes.filter((a) => a.handleId === 'h' && a.releasedAt === undefined)).toEqual([]);
    expect(await client.ipsByHandle('seed')).toHaveLength(1);
    expect(await c.invariantProblems()).toEqual([]);
  });

  it('a handle that gained a block before the release transaction: re-read, and the new block kept', async () => {
    const { c, t, client } = await setUp();
    await client.autoAssign({ num4: 1, hostname: 'a', handleId: 'h', intendedUse: 'Workload' });
    t.before(2, async () => {
      await c.direct().assignIp({ ip: '10.0.0.50', hostname: 'a', handleId: 'h' });
    });
    t.calls.length = 0;
    await client.releaseByHandle('h');
    // The first transaction is refused on the handle alone; the second applies.
    expect(t.calls).toEqual(['transact:update+delete', 'transact:update+update']);
    expect((await handle(c.store, 'h')).value.block).toEqual({ '10.0.0.48/28': 1 });
    expect(await client.ipsByHandle('h')).toEqual(['10.0.0.50']);
    expect(await c.invariantProblems()).toEqual([]);
  });

  it('refuses past the per-version cap without writing anything', async () => {
    const { c, t, client } = await setUp();
    await client.assignIp({
      ip: '10.0.0.5',
      hostname: 'a',
      handleId: 'h',
      maxAllocToHandlePerIpVersion: 1,
    });
    t.calls.length = 0;
    await expect(
      client.assignIp({
        ip: '10.0.0.6',
        hostname: 'a',
        handleId: 'h',
        maxAllocToHandlePerIpVersion: 1,
      }),
    ).rejects.toMatchObject({ code: 'InvalidArgument' });
    expect(t.calls.filter((x) => x.startsWith('transact'))).toEqual(['transact:create+update']);
    expect((await handle(c.store, 'h')).value.block).toEqual({ '10.0.0.0/28': 1 });
    expect(await client.ipsByHandle('h')).toEqual(['10.0.0.5']);
  });
});
