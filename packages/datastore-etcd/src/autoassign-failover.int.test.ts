import type { Datastore, IpamClient } from '@netledger/ipam-core';
import { IpamError, createIpamClient, isIpamError } from '@netledger/ipam-core';
import { startEtcd } from '@netledger/testkit';
import type { EtcdFixture } from '@netledger/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heldBy, readIpamLedger } from '../test/ipam-ledger.js';
import { createEtcdDatastore } from './create-etcd-datastore.js';

// autoAssign from 8 hosts, each with its own client and its own etcd connection (nothing is
// serialised in-process), through a leader kill on a 3-member cluster. Half the hosts are patient
// (dial timeout longer than an election) and ride through it; half are impatient (1 s) and see
// `Unavailable`, including writes whose answer was lost and that may or may not have applied.

const HOSTS = 8;
const PER_HOST = 30;
const KILL_AFTER = 80; // successful assigns before the leader is killed
const POOL = '10.20.0.0/20';
const BLOCK_SIZE = 26;
const EXPECTED_CODES = ['Unavailable', 'MaxRetries'];

/** One autoAssign call and what became of it. */
interface Call {
  readonly host: string;
  readonly handleId: string;
  readonly startedAfterKill: boolean;
  outcome: 'assigned' | 'short' | 'failed';
  ips: string[];
  error?: IpamError;
  /** Writes during the call that failed `Unavailable` saying they may or may not have applied. */
  unknownWrites: string[];
}

/**
 * Forwards to `ds`, noting on the host's current call every write that failed with an unknown
 * outcome: such a write may have allocated an address the caller never heard of.
 */
function recordUnknownWrites(ds: Datastore, current: () => Call | undefined): Datastore {
  const note = <T>(what: string, p: Promise<T>): Promise<T> =>
    p.catch((e: unknown) => {
      if (isIpamError(e, 'Unavailable') && e.message.includes('may or may not')) {
        current()?.unknownWrites.push(`${what}: ${e.message}`);
      }
      throw e;
    });
  return {
    create: (kv) => note(`create ${kv.key.kind}`, ds.create(kv)),
    update: (kv) => note(`update ${kv.key.kind}`, ds.update(kv)),
    apply: (kv) => note(`apply ${kv.key.kind}`, ds.apply(kv)),
    delete: (key, o) => note(`delete ${key.kind}`, ds.delete(key, o)),
    ...(ds.transact && {
      transact: (writes) =>
        note(
          `transact ${writes.map((w) => `${w.op} ${(w.op === 'delete' ? w.key : w.kv.key).kind}`).join(', ')}`,
          ds.transact!(writes),
        ),
    }),
    get: (key) => ds.get(key),
    list: (o) => ds.list(o),
    watch: (o, w) => ds.watch(o, w),
    close: () => ds.close(),
  };
}

describe('autoAssign through a leader kill on a 3-member cluster', () => {
  let etcd: EtcdFixture;
  let admin: Datastore;
  beforeAll(async () => {
    etcd = await startEtcd({ members: 3 });
    admin = createEtcdDatastore({ endpoints: etcd.endpoints, dialTimeoutMs: 15_000 });
  });
  afterAll(async () => {
    await admin.close();
    await etcd.stop();
  });

  it(
    'assigns no address twice and leaves blocks, handles and affinities consistent',
    { timeout: 90_000 },
    async () => {
      const adminClient = createIpamClient({ datastore: admin });
      await adminClient.pools.create({
        metadata: { name: 'failover' },
        spec: { cidr: POOL, blockSize: BLOCK_SIZE },
      });

      const hosts = await Promise.all(
        Array.from({ length: HOSTS }, async (_, i) => {
          const name = `node-${i}`;
          await adminClient.nodes.create({ metadata: { name } });
          let current: Call | undefined;
          const ds = createEtcdDatastore({
            endpoints: etcd.endpoints,
            dialTimeoutMs: i % 2 === 0 ? 15_000 : 1000,
            requestTimeoutMs: 3000,
          });
          const client: IpamClient = createIpamClient({
            datastore: recordUnknownWrites(ds, () => current),
          });
          return { name, ds, client, setCurrent: (c: Call) => (current = c) };
        }),
      );

      const calls: Call[] = [];
      let succeeded = 0;
      let killed: Promise<number> | undefined;
      let killDone = false;
      try {
        await Promise.all(
          hosts.map(async (host) => {
            for (let n = 0; n < PER_HOST; n++) {
              const call: Call = {
                host: host.name,
                handleId: `failover.${host.name}-${n}`,
                startedAfterKill: killDone,
                outcome: 'failed',
                ips: [],
                unknownWrites: [],
              };
              calls.push(call);
              host.setCurrent(call);
              try {
                const { v4 } = await host.client.autoAssign({
                  num4: 1,
                  hostname: host.name,
                  handleId: call.handleId,
                  intendedUse: 'Workload',
                });
                call.ips = v4.ips;
                call.outcome = v4.ips.length === 1 ? 'assigned' : 'short';
              } catch (e) {
                if (!(e instanceof IpamError)) throw e;
                call.error = e;
              }
              if (call.outcome !== 'assigned') continue;
              succeeded++;
              if (succeeded === KILL_AFTER && !killed) {
                killed = etcd.leaderIndex().then(async (leader) => {
                  await etcd.kill(leader);
                  killDone = true;
                  return leader;
                });
              }
            }
          }),
        );
      } finally {
        await Promise.all(hosts.map((h) => h.ds.close()));
      }

      const leader = await killed;
      expect(leader).toBeDefined();
      expect(await etcd.leaderIndex()).not.toBe(leader); // two of three: back at quorum

      const assigned = calls.filter((c) => c.outcome === 'assigned');
      const failed = calls.filter((c) => c.outcome === 'failed');
      const short = calls.filter((c) => c.outcome === 'short');
      const lostAnswers = calls.filter((c) => c.unknownWrites.length > 0);
      console.log(
        `autoAssign failover: ${assigned.length} assigned (${assigned.filter((c) => c.startedAfterKill).length} started after the kill), ` +
          `${failed.length} failed [${failed.map((c) => c.error?.code).join(', ')}], ${short.length} short, ` +
          `${lostAnswers.length} with writes of unknown outcome`,
      );
      for (const c of [...failed, ...short, ...lostAnswers]) {
        console.log(
          `  ${c.handleId}: ${c.outcome} ${c.ips.join(' ')} ${c.error ? `${c.error.code}: ${c.error.message}` : ''} ${c.unknownWrites.join('; ')}`,
        );
      }

      // Every call either assigned its one address or failed with an expected, explained code.
      expect(calls).toHaveLength(HOSTS * PER_HOST);
      for (const c of failed) {
        expect(EXPECTED_CODES).toContain(c.error!.code);
        expect(c.error!.message).toMatch(/etcd at .* unreachable|Max retries hit/);
      }
      expect(assigned.filter((c) => c.startedAfterKill).length).toBeGreaterThan(0);

      const ledger = await readIpamLedger(admin);

      // No address assigned twice, and each is allocated in its block to the handle it was given to.
      const returned = assigned.flatMap((c) =>
        c.ips.map((cidr) => ({ cidr, handleId: c.handleId })),
      );
      expect(new Set(returned.map((r) => r.cidr.split('/')[0])).size).toBe(returned.length);
      for (const r of returned) {
        const [ip, mask] = r.cidr.split('/');
        expect(mask).toBe(String(BLOCK_SIZE));
        expect(ledger.allocations.get(ip!)).toMatchObject({ handleId: r.handleId });
      }

      // Every allocation belongs to one of our calls, and a call holds what it was told plus at
      // most one address per write whose answer was lost (none without such a write).
      const byHandle = new Map(calls.map((c) => [c.handleId, c]));
      for (const a of ledger.allocations.values()) expect(byHandle.has(a.handleId!)).toBe(true);
      const unexplained = calls.filter((c) => {
        const extra = heldBy(ledger, c.handleId) - c.ips.length;
        return extra < 0 || extra > c.unknownWrites.length;
      });
      expect(unexplained.map((c) => c.handleId)).toEqual([]);

      expect(ledger.blockProblems).toEqual({});
      expect(ledger.affinityProblems).toEqual([]);

      // Handles never under-count (an address its handle does not count could never be released
      // by handle). They count exactly, except that a lost write may leave one over-counting by at
      // most one per such write: Calico's write order (handle before block) makes over-counting
      // the only possible error, and a write whose outcome is unknown cannot be undone.
      expect(ledger.handleMismatches.filter((m) => m.counted < m.holds)).toEqual([]);
      const overCounted = new Map<string, number>();
      for (const m of ledger.handleMismatches) {
        overCounted.set(m.handleId, (overCounted.get(m.handleId) ?? 0) + m.counted - m.holds);
      }
      for (const [handleId, over] of overCounted) {
        console.log(`  ${handleId} over-counts by ${over} after a lost write`);
        expect(over).toBeLessThanOrEqual(byHandle.get(handleId)?.unknownWrites.length ?? 0);
      }
      const utilization = await adminClient.getUtilization({ pools: ['failover'] });
      expect(utilization[0]).toMatchObject({ inUse: ledger.allocations.size });

      // What a container runtime does after a failed ADD: DEL, i.e. release by handle. Afterwards
      // the failed calls hold nothing and have no handle.
      const release = async (c: Call): Promise<void> =>
        adminClient.releaseByHandle(c.handleId).catch((e: unknown) => {
          if (!isIpamError(e, 'DoesNotExist')) throw e;
        });
      for (const c of [...failed, ...short]) await release(c);
      const afterDel = await readIpamLedger(admin);
      for (const c of [...failed, ...short]) {
        expect({ handle: c.handleId, holds: heldBy(afterDel, c.handleId) }).toEqual({
          handle: c.handleId,
          holds: 0,
        });
        expect(afterDel.handles.has(c.handleId)).toBe(false);
      }
      expect(afterDel.blockProblems).toEqual({});

      // Deleting every pod releases everything: nothing leaks, over-counted handles included.
      await Promise.all(
        hosts.map(async (h) => {
          for (const c of assigned.filter((a) => a.host === h.name)) await release(c);
        }),
      );
      const empty = await readIpamLedger(admin);
      expect(empty.allocations.size).toBe(0);
      expect([...empty.handles.keys()]).toEqual([]);
      expect(empty.blockProblems).toEqual({});
    },
  );
});
