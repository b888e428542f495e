import type { Datastore } from '@netledger/ipam-core';
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
  // its handle does not count). Not applied: the handle over-counts by the one in doubt. Either
  // way the runtime's DEL (releaseByHandle) must leave nothing behind.
  it.each([
    { applied: true, held: 1 },
    { applied: false, held: 0 },
  ])(
    'block write applied: $applied; no address goes uncounted and DEL leaves nothing',
    async ({ applied, held }) => {
      let loseNextBlockAnswer = false;
      const losing: Datastore = {
        ...ds,
        update: async (kv) => {
          if (!loseNextBlockAnswer || kv.key.kind !== 'IPAMBlock') return ds.update(kv);
          loseNextBlockAnswer = false;
          if (applied) await ds.update(kv);
          throw new IpamError(
            'Unavailable',
            `etcd at ${etcd.endpoints.join(',')} unreachable: connection reset; the write to ${keyToPath(kv.key)} may or may not have been applied`,
          );
        },
      };
      const client = createIpamClient({ datastore: losing });
      const pool = `lost-${String(applied)}`;
      const node = `node-${String(applied)}`;
      await client.pools.create({
        metadata: { name: pool },
        spec: { cidr: applied ? '10.30.0.0/24' : '10.31.0.0/24', blockSize: 26 },
      });
      await client.nodes.create({ metadata: { name: node } });
      const warm = `warm-${String(applied)}`;
      const lost = `lost-${String(applied)}`;
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
        held === 1 ? [] : [expect.objectContaining({ handleId: lost, counted: 1, holds: 0 })],
      );
      expect(ledger.blockProblems).toEqual({});

      await client.releaseByHandle(lost);
      const after = await readIpamLedger(ds);
      expect(heldBy(after, lost)).toBe(0);
      expect(after.handles.has(lost)).toBe(false);
      expect(after.handleMismatches).toEqual([]);
    },
  );
});
