// netledger autoAssign on real etcd: the rate from 1 and from N concurrent hosts (each host its own
// IPAM client over its own etcd connection, so nothing is serialised in-process), with a plain
// client and with a long-lived one reading through a watch-fed mirror, the etcd writes and reads
// each assign costs, and the Whereabouts scale case (500 pods on 100 nodes, all at once).
import type { Datastore, IpamClient } from '@netledger/ipam-core';
import { createIpamClient } from '@netledger/ipam-core';
import { createMirroredDatastore } from '@netledger/ipam-core/adapter';
import type { Etcd3 } from 'etcd3';
import { createEtcdDatastore } from '../src/create-etcd-datastore.js';

/** Datastore calls made through a {@link countCalls} wrapper. */
interface CallCounts {
  writes: number;
  reads: number;
}

/** Forwards to `ds`, counting writes (each one etcd transaction, `transact` too) and reads (a range or one read-only transaction). */
function countCalls(ds: Datastore, counts: CallCounts): Datastore {
  const write = <T>(p: Promise<T>): Promise<T> => (counts.writes++, p);
  const read = <T>(p: Promise<T>): Promise<T> => (counts.reads++, p);
  return {
    create: (kv) => write(ds.create(kv)),
    update: (kv) => write(ds.update(kv)),
    apply: (kv) => write(ds.apply(kv)),
    delete: (key, o) => write(ds.delete(key, o)),
    get: (key) => read(ds.get(key)),
    list: (o) => read(ds.list(o)),
    ...(ds.listMany && { listMany: (o) => read(ds.listMany!(o)) }),
    ...(ds.transact && { transact: (w) => write(ds.transact!(w)) }),
    watch: (o, w) => ds.watch(o, w),
    close: () => ds.close(),
  };
}

/** One IPAM host: a node with its own client and its own etcd connection. */
interface Host {
  readonly name: string;
  readonly client: IpamClient;
  readonly ds: Datastore;
}

/** What {@link measureAutoAssign} and {@link measureScaleCase} measured. */
export interface AssignRun {
  readonly hosts: number;
  readonly assigns: number;
  readonly failures: number;
  readonly seconds: number;
  /** Sorted, ms. */
  readonly latencies: number[];
  /** Datastore writes (etcd transactions sent) and reads during the timed part. */
  readonly counts: CallCounts;
  /** etcd revisions consumed during the timed part: the writes etcd applied. */
  readonly revisions: number;
}

const storeRevision = async (raw: Etcd3): Promise<number> =>
  Number((await raw.kv.range({ key: Buffer.from('/calico/') })).header.revision);

/** Empties /calico/ and creates `pool` and `nodes` nodes, each with its own client and connection. */
async function setUp(
  raw: Etcd3,
  endpoints: readonly string[],
  opts: {
    pool: string;
    blockSize: number;
    nodes: number;
    prefix: string;
    counts: CallCounts;
    /** Each host's client reads through `createMirroredDatastore` (counted: what reaches etcd). */
    mirrored?: boolean;
    /**
     * All hosts' clients share one etcd connection (as the raw CAS rows' writers do) instead of
     * opening one each. Each host keeps its own IPAM client, mirror and block hints.
     */
    sharedConnection?: boolean;
  },
): Promise<{ hosts: Host[]; close: () => Promise<void> }> {
  await raw.delete().prefix('/calico/');
  const adminDs = createEtcdDatastore({ endpoints });
  const admin = createIpamClient({ datastore: adminDs });
  await admin.pools.create({
    metadata: { name: 'bench' },
    spec: { cidr: opts.pool, blockSize: opts.blockSize },
  });
  const shared = opts.sharedConnection ? createEtcdDatastore({ endpoints }) : undefined;
  const hosts: Host[] = [];
  for (let i = 0; i < opts.nodes; i++) {
    const name = `${opts.prefix}-${i}`;
    await admin.nodes.create({ metadata: { name } });
    // A host's view of the shared connection must not close it for the others.
    const connection = shared ? { ...shared, close: async () => undefined } : undefined;
    const counted = countCalls(connection ?? createEtcdDatastore({ endpoints }), opts.counts);
    const ds = opts.mirrored ? createMirroredDatastore(counted) : counted;
    hosts.push({ name, ds, client: createIpamClient({ datastore: ds }) });
  }
  await adminDs.close();
  const close = async (): Promise<void> => {
    await Promise.all(hosts.map((h) => h.ds.close()));
    await shared?.close();
  };
  return { hosts, close };
}

const assignOne = async (host: Host, handleId: string, out: AssignTally): Promise<void> => {
  const t = performance.now();
  try {
    const { v4 } = await host.client.autoAssign({
      num4: 1,
      hostname: host.name,
      handleId,
      intendedUse: 'Workload',
    });
    if (v4.ips.length !== 1) out.failures++;
    for (const ip of v4.ips) {
      if (out.ips.has(ip)) throw new Error(`${ip} assigned twice`);
      out.ips.add(ip);
    }
  } catch (e) {
    out.failures++;
    if (out.failures === 1) console.error(`autoAssign failed: ${String(e)}`);
  }
  out.latencies.push(performance.now() - t);
};

interface AssignTally {
  failures: number;
  readonly ips: Set<string>;
  readonly latencies: number[];
}

async function timed(
  raw: Etcd3,
  { hosts, close }: { hosts: readonly Host[]; close: () => Promise<void> },
  counts: CallCounts,
  body: (tally: AssignTally) => Promise<void>,
): Promise<AssignRun> {
  const tally: AssignTally = { failures: 0, ips: new Set(), latencies: [] };
  counts.writes = 0;
  counts.reads = 0;
  const before = await storeRevision(raw);
  const start = performance.now();
  await body(tally);
  const seconds = (performance.now() - start) / 1000;
  const revisions = (await storeRevision(raw)) - before;
  await close();
  return {
    hosts: hosts.length,
    assigns: tally.latencies.length,
    failures: tally.failures,
    seconds,
    latencies: tally.latencies.sort((a, b) => a - b),
    counts: { ...counts },
    revisions,
  };
}

/**
 * autoAssign of one address at a time, `perHost` from each of `hosts` hosts, into blocks the hosts
 * already own (each claims its block in an untimed warm-up assign, which also fills a mirrored
 * client's mirror). With `concurrent` every host runs at once; without, the hosts take turns (one
 * assign in flight). Blocks are /26 (Calico's default), so `perHost` is at most 63.
 */
export async function measureAutoAssign(
  raw: Etcd3,
  endpoints: readonly string[],
  opts: {
    hosts: number;
    perHost: number;
    concurrent: boolean;
    mirrored: boolean;
    sharedConnection: boolean;
  },
): Promise<AssignRun> {
  if (opts.perHost > 63) throw new Error('perHost must fit in one /26 block after the warm-up');
  const counts: CallCounts = { writes: 0, reads: 0 };
  const fleet = await setUp(raw, endpoints, {
    pool: '10.64.0.0/16',
    blockSize: 26,
    nodes: opts.hosts,
    prefix: opts.concurrent ? 'concurrent' : 'sequential',
    counts,
    mirrored: opts.mirrored,
    sharedConnection: opts.sharedConnection,
  });
  const { hosts } = fleet;
  const warm: AssignTally = { failures: 0, ips: new Set(), latencies: [] };
  await Promise.all(hosts.map((h) => assignOne(h, `warm.${h.name}`, warm)));
  if (warm.failures > 0) throw new Error('warm-up claim failed');
  const run = async (h: Host, tally: AssignTally): Promise<void> => {
    for (let i = 0; i < opts.perHost; i++) await assignOne(h, `pod.${h.name}.${i}`, tally);
  };
  return timed(raw, fleet, counts, async (tally) => {
    if (opts.concurrent) await Promise.all(hosts.map((h) => run(h, tally)));
    else for (const h of hosts) await run(h, tally);
  });
}

/**
 * Whereabouts' scale case: `nodes` nodes with `podsPerNode` pods each, every pod's autoAssign
 * started at once on a fresh pool (each node claims its block during the run). Each node has its
 * own client and connection, created before the clock starts but not yet connected.
 */
export async function measureScaleCase(
  raw: Etcd3,
  endpoints: readonly string[],
  opts: { nodes: number; podsPerNode: number },
): Promise<AssignRun> {
  const counts: CallCounts = { writes: 0, reads: 0 };
  const fleet = await setUp(raw, endpoints, {
    pool: '10.128.0.0/16',
    blockSize: 26,
    nodes: opts.nodes,
    prefix: 'node',
    counts,
  });
  return timed(raw, fleet, counts, (tally) =>
    Promise.all(
      fleet.hosts.flatMap((h) =>
        Array.from({ length: opts.podsPerNode }, (_, i) =>
          assignOne(h, `pod.${h.name}.${i}`, tally),
        ),
      ),
    ).then(() => undefined),
  );
}
