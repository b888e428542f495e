import type { Datastore, DatastoreKey } from '@netledger/ipam-core';
import { IpamError } from '@netledger/ipam-core';
import { withCasRetry } from '@netledger/ipam-core/adapter';
import { startEtcd } from '@netledger/testkit';
import type { EtcdFixture } from '@netledger/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ETCD_TRANSPORTS } from '../test/wiped-etcd-target.js';
import { createEtcdDatastore } from './create-etcd-datastore.js';

// The ipam client does not exist yet, so the workload is the essence of every IPAM write: a
// compare-and-swap read-modify-write on one hot key, from concurrent writers, through a leader kill.

const WRITERS = 8;
const PER_WRITER = 30;
const KILL_AFTER = 60; // successful increments before the leader is killed

let etcd: EtcdFixture;
beforeAll(async () => {
  etcd = await startEtcd({ members: 3 });
});
afterAll(async () => {
  await etcd.stop();
});

// Once per transport on one cluster: the member a run killed is restarted before the next run.
describe.each(ETCD_TRANSPORTS)('failover on a 3-member cluster, over %s', (transport) => {
  const counterKey: DatastoreKey<'IPAMHandle'> = {
    kind: 'IPAMHandle',
    handleId: `counter-${transport}`,
  };
  let ds: Datastore;
  beforeAll(async () => {
    for (const [i, member] of etcd.members.entries()) {
      if (!member.running) await etcd.restart(i);
    }
    ds = createEtcdDatastore({
      endpoints: etcd.endpoints,
      dialTimeoutMs: 15_000,
      requestTimeoutMs: 3000,
      transport,
    });
  });
  afterAll(async () => {
    await ds.close();
  });

  it(
    'loses and doubles no increment from 8 CAS writers while the leader is killed',
    { timeout: 120_000 },
    async () => {
      await ds.create({
        key: counterKey,
        value: { handleId: counterKey.handleId, block: { n: 0 }, deleted: false },
      });
      let succeeded = 0;
      let succeededAfterKill = 0;
      let killed: Promise<number> | undefined;
      const failures: IpamError[] = [];

      const increment = (writer: number, op: number): Promise<void> =>
        withCasRetry(async () => {
          const kv = await ds.get(counterKey);
          // The writer and op in the value make every write's bytes unique (see README: unknown outcomes).
          const block = { n: kv.value.block.n! + 1, writer, op };
          await ds.update({ ...kv, value: { ...kv.value, block } });
        });

      await Promise.all(
        Array.from({ length: WRITERS }, async (_, writer) => {
          for (let op = 0; op < PER_WRITER; op++) {
            try {
              await increment(writer, op);
              succeeded++;
              if (killed) succeededAfterKill++;
              if (succeeded === KILL_AFTER && !killed) {
                killed = etcd.leaderIndex().then(async (leader) => {
                  await etcd.kill(leader);
                  return leader;
                });
              }
            } catch (e) {
              if (!(e instanceof IpamError)) throw e;
              failures.push(e);
            }
          }
        }),
      );
      const leader = await killed;
      expect(leader).toBeDefined();
      expect(etcd.members[leader!]!.running).toBe(false);
      const newLeader = await etcd.leaderIndex();
      expect(newLeader).not.toBe(leader);

      // Every failure is a clear IpamError; there may be none when the election is quick.
      for (const f of failures) expect(['Unavailable', 'MaxRetries']).toContain(f.code);
      expect(succeeded + failures.length).toBe(WRITERS * PER_WRITER);
      expect(succeededAfterKill).toBeGreaterThan(0);

      const fresh = createEtcdDatastore({ endpoints: etcd.endpoints, transport });
      try {
        expect((await fresh.get(counterKey)).value.block.n).toBe(succeeded);
      } finally {
        await fresh.close();
      }
    },
  );
});
