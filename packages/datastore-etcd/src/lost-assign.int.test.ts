import type { Datastore, DatastoreKey } from '@netledger/ipam-core';
import { IpamError, createIpamClient } from '@netledger/ipam-core';
import { keyToPath } from '@netledger/ipam-core/adapter';
import { startEtcd } from '@netledger/testkit';
import type { EtcdFixture } from '@netledger/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heldBy, readIpamLedger } from '../test/ipam-ledger.js';
import { createEtcdDatastore } from './create-etcd-datastore.js';

// The one case the adapter cannot resolve: a block write's answer is lost and etcd stays
// unreachable past the dial timeout, so the write fails `Unavailable` ("may or may not have been
// applied"). The failure is injected at the Datastore port, because a real partition trips etcd3's
// per-host circuit breaker for 5 s and would make this test slow.

describe('an assign whose block write failed Unavailable (it may or may not have applied)', () => {
  let etcd: EtcdFixture;
  let ds: Datastore;
  beforeAll(async () => {
    etcd = await startEtcd();
    ds = createEtcdDatastore({ endpoints: etcd.endpoints });
  });
  afterAll(async () => {
    await ds.close();
    await etcd.stop();
  });

  // The block write is applied for real or not at all, and its answer replaced by the adapter's
  // "may or may not" error. The assign ends there with that error (it does not go on to count the
  // handle again elsewhere). Applied: the address stays counted by its handle (never an address
  // its handle does not count). Not applied: written one at a time, the handle over-counts by the
  // one in doubt; in one transaction with the block (etcd's `transact`), nothing was written at
  // all. Either way the runtime's DEL (releaseByHandle) must leave nothing behind.
  it.each([
    { applied: true, transactions: true, held: 1, overCount: false },
    { applied: false, transactions: true, held: 0, overCount: false },
    { applied: true, transactions: false, held: 1, overCount: false },
    { applied: false, transactions: false, held: 0, overCount: true },
  ])(
    'block write applied: $applied, transactions: $transactions; no address goes uncounted and DEL leaves nothing',
    async ({ applied, transactions, held, overCount }) => {
      let loseNextBlockAnswer = false;
      const lose = async <T>(key: DatastoreKey, write: () => Promise<T>): Promise<never> => {
        loseNextBlockAnswer = false;
        if (applied) await write();
        throw new IpamError(
          'Unavailable',
          `etcd at ${etcd.endpoints.join(',')} unreachable: connection reset; the write to ${keyToPath(key)} may or may not have been applied`,
        );
      };
      const { transact: _, ...oneAtATime } = ds;
      const losing: Datastore = {
        ...(transactions ? ds : oneAtATime),
        update: async (kv) =>
          loseNextBlockAnswer && kv.key.kind === 'IPAMBlock'
            ? lose(kv.key, () => ds.update(kv))
            : ds.update(kv),
        ...(transactions && {
          transact: async (writes) => {
            const block = writes.find((w) => w.op === 'update' && w.kv.key.kind === 'IPAMBlock');
            return loseNextBlockAnswer && block?.op === 'update'
              ? lose(block.kv.key, () => ds.transact!(writes))
              : ds.transact!(writes);
          },
        }),
      };
      const client = createIpamClient({ datastore: losing });
      const tag = `${String(applied)}-${String(transactions)}`;
      const pool = `lost-${tag}`;
      const node = `node-${tag}`;
      const net = 30 + Number(applied) + 2 * Number(transactions);
      await client.pools.create({
        metadata: { name: pool },
        spec: { cidr: `10.${net}.0.0/24`, blockSize: 26 },
      });
      await client.nodes.create({ metadata: { name: node } });
      const warm = `warm-${tag}`;
      const lost = `lost-${tag}`;
      await client.autoAssign({ num4: 1, hostname: node, handleId: warm, intendedUse: 'Workload' });

      loseNextBlockAnswer = true;
      await expect(
        client.autoAssign({ num4: 1, hostname: node, handleId: lost, intendedUse: 'Workload' }),
      ).rejects.toMatchObject({
        code: 'Unavailable',
        message: expect.stringContaining('may or may not have been applied'),
      });
      expect(loseNextBlockAnswer).toBe(false);

      const ledger = await readIpamLedger(ds);
      expect(heldBy(ledger, lost)).toBe(held);
      expect(ledger.handleMismatches).toEqual(
        overCount ? [expect.objectContaining({ handleId: lost, counted: 1, holds: 0 })] : [],
      );
      expect(ledger.handles.has(lost)).toBe(held === 1 || overCount);
      expect(ledger.blockProblems).toEqual({});

      // A DEL: the handle's release, or nothing to release.
      await client.releaseByHandle(lost).catch((e: unknown) => {
        if (!(e instanceof IpamError) || e.code !== 'DoesNotExist' || ledger.handles.has(lost))
          throw e;
      });
      const after = await readIpamLedger(ds);
      expect(heldBy(after, lost)).toBe(0);
      expect(after.handles.has(lost)).toBe(false);
      expect(after.handleMismatches).toEqual([]);
    },
  );
});
