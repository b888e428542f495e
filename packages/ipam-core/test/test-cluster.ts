import { createIpamClient } from '../src/client/ipam-client.js';
import type { IpamClient } from '../src/client/ipam-client.js';
import type { Clock, Random } from '../src/client/clock.js';
import type { IpamContext } from '../src/client/ipam-context.js';
import type { Datastore } from '../src/datastore/datastore.js';
import { createMemoryDatastore } from '../src/datastore/memory-datastore.js';
import { findBlockProblems } from '../src/block/block-problems.js';
import type { AllocationBlock } from '../src/model/block.js';
import type { InterleavingDatastore } from './interleaving-datastore.js';
import { createInterleavingDatastore } from './interleaving-datastore.js';

/** A clock the test moves by hand. */
interface ManualClock extends Clock {
  advance(ms: number): void;
  set(ms: number): void;
}

/** Starts at `start` (whole seconds by default, so claim times are exact). */
function createManualClock(start = Date.parse('2026-03-01T00:00:00Z')): ManualClock {
  let now = start;
  return {
    now: () => now,
    advance: (ms) => {
      now += ms;
    },
    set: (ms) => {
      now = ms;
    },
  };
}

/** A seeded PRNG (mulberry32) as a {@link Random}: repeatable runs. */
export function createSeededRandom(seed: number): Random {
  let a = seed >>> 0;
  return {
    next: () => {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
    },
  };
}

/** One memory store, an interleaving wrapper over it, and a way to make one client per host. */
export interface TestCluster {
  readonly store: Datastore;
  readonly ds: InterleavingDatastore;
  readonly clock: ManualClock;
  /** A client over the wrapper (hooks fire), or over `datastore`; each call makes a separate client. */
  client(seed?: number, datastore?: Datastore): IpamClient;
  /** A client straight over the store (no hooks): the "other process" in an interleaving. */
  direct(seed?: number): IpamClient;
  /** A context for the internal block reader/writer functions, over the wrapper. */
  context(): IpamContext;
  blocks(): Promise<AllocationBlock[]>;
  affinities(): Promise<{ host: string; type: string; cidr: string; state: string }[]>;
  /** Every stored block's invariant violations, by CIDR (empty when sound). */
  invariantProblems(): Promise<string[]>;
}

/** Creates a store with one pool and registered nodes; `strict` turns strict affinity on. */
export async function createTestCluster(args: {
  pools: { cidr: string; blockSize: number }[];
  hosts: readonly string[];
  strict?: boolean;
  ipCooldownSeconds?: number;
}): Promise<TestCluster> {
  const store = createMemoryDatastore();
  const ds = createInterleavingDatastore(store);
  const clock = createManualClock();
  let seeds = 1;
  const make = (datastore: Datastore, seed?: number) =>
    createIpamClient({ datastore, clock, random: createSeededRandom(seed ?? seeds++) });
  const admin = make(store);
  for (const [i, p] of args.pools.entries()) {
    await admin.pools.create({
      metadata: { name: `pool-${i}` },
      spec: { cidr: p.cidr, blockSize: p.blockSize },
    });
  }
  for (const host of args.hosts) await admin.nodes.create({ metadata: { name: host } });
  if (args.strict || args.ipCooldownSeconds) {
    await admin.setIpamConfig({
      ...(await admin.getIpamConfig()),
      strictAffinity: args.strict ?? false,
      ipCooldownSeconds: args.ipCooldownSeconds ?? 0,
    });
  }
  const blocks = async () => (await store.list({ kind: 'IPAMBlock' })).items.map((kv) => kv.value);
  return {
    store,
    ds,
    clock,
    client: (seed, datastore) => make(datastore ?? ds, seed),
    direct: (seed) => make(store, seed),
    context: () => ({ ds, clock, random: createSeededRandom(seeds++) }),
    blocks,
    affinities: async () =>
      (await store.list({ kind: 'BlockAffinity' })).items.map((kv) => ({
        host: kv.key.host,
        type: kv.key.affinityType,
        cidr: kv.key.cidr,
        state: kv.value.state,
      })),
    invariantProblems: async () =>
      (await blocks()).flatMap((b) => findBlockProblems(b).map((p) => `${b.cidr}: ${p.message}`)),
  };
}
