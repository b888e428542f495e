// ipam-core on the in-process memory store: the hot path and the bulk operations.
import type { Datastore, IpamClient } from '@netledger/ipam-core';
import { createIpamClient, createMemoryDatastore } from '@netledger/ipam-core';
import { newBlock } from '@netledger/ipam-core/block';
import { formatCidr, parseCidr } from '@netledger/accounting';
import type { BenchResult } from './bench-report.js';
import { percentile, writeBenchResults } from './bench-report.js';

const HOSTS = 1000;
const ASSIGNS = 20_000;
const RELEASES = 10_000;
const UTILIZATION_BLOCKS = 10_000;

const host = (i: number): string => `node-${String(i).padStart(4, '0')}`;

async function timed<T>(samples: number[], work: () => Promise<T>): Promise<T> {
  const start = performance.now();
  const out = await work();
  samples.push(performance.now() - start);
  return out;
}

async function setup(): Promise<{ ds: Datastore; client: IpamClient }> {
  const ds = createMemoryDatastore();
  const client = createIpamClient({ datastore: ds });
  await client.pools.create({
    metadata: { name: 'bench' },
    spec: { cidr: '10.0.0.0/16', blockSize: 26 },
  });
  for (let i = 0; i < HOSTS; i++) await client.nodes.create({ metadata: { name: host(i) } });
  return { ds, client };
}

const stats = (name: string, samples: number[], target?: string): BenchResult[] => {
  const sorted = [...samples].sort((a, b) => a - b);
  const total = samples.reduce((a, b) => a + b, 0);
  return [
    {
      name: `${name}: throughput`,
      value: (samples.length / total) * 1000,
      unit: 'ops/s',
      better: 'higher',
      ...(target && { target }),
    },
    { name: `${name}: p50`, value: percentile(sorted, 50), unit: 'ms', better: 'lower' },
    { name: `${name}: p99`, value: percentile(sorted, 99), unit: 'ms', better: 'lower' },
  ];
};

async function main(): Promise<void> {
  const results: BenchResult[] = [];
  const { ds, client } = await setup();

  // New-block claims: each host's first address claims a block on the /16 (1024 /26 blocks).
  const claims: number[] = [];
  const held: string[] = [];
  for (let i = 0; i < HOSTS; i++) {
    const r = await timed(claims, () =>
      client.autoAssign({
        num4: 1,
        hostname: host(i),
        handleId: `h-${i}-0`,
        intendedUse: 'Workload',
      }),
    );
    if (r.v4.ips.length !== 1) throw new Error(`host ${i}: no address on its claim`);
    held.push(r.v4.ips[0]!.split('/')[0]!);
  }
  results.push(...stats(`new-block claim, ${HOSTS} hosts, /16 with /26 blocks`, claims));

  // The hot path: one address into an existing affine block, hosts in turn.
  const assigns: number[] = [];
  for (let n = 0; n < ASSIGNS; n++) {
    const i = n % HOSTS;
    const r = await timed(assigns, () =>
      client.autoAssign({
        num4: 1,
        hostname: host(i),
        handleId: `h-${i}-${n}`,
        intendedUse: 'Workload',
      }),
    );
    if (r.v4.ips.length !== 1) throw new Error(`assign ${n}: no address`);
    held.push(r.v4.ips[0]!.split('/')[0]!);
  }
  results.push(
    ...stats(
      `single-IP autoAssign into an affine block, ${HOSTS} hosts`,
      assigns,
      '>= 10,000 ops/s',
    ),
  );

  // Bulk release: one call with 10,000 addresses spread over every block.
  const start = performance.now();
  const released = await client.releaseIps(held.slice(0, RELEASES).map((address) => ({ address })));
  const releaseMs = performance.now() - start;
  if (released.released.length !== RELEASES) throw new Error('release incomplete');
  results.push({
    name: `releaseIps of ${RELEASES} addresses (one call)`,
    value: releaseMs,
    unit: 'ms',
    better: 'lower',
  });
  results.push({
    name: `releaseIps of ${RELEASES} addresses: rate`,
    value: (RELEASES / releaseMs) * 1000,
    unit: 'addresses/s',
    better: 'higher',
  });
  await ds.close();

  // Utilization over 10,000 blocks of a /12.
  const uds = createMemoryDatastore();
  const uclient = createIpamClient({ datastore: uds });
  await uclient.pools.create({
    metadata: { name: 'wide' },
    spec: { cidr: '10.0.0.0/12', blockSize: 26 },
  });
  await uclient.reservations.create({
    metadata: { name: 'r' },
    spec: { reservedCIDRs: ['10.0.0.0/20', '10.1.2.3'] },
  });
  const pool = parseCidr('10.0.0.0/12');
  for (let b = 0; b < UTILIZATION_BLOCKS; b++) {
    const cidr = formatCidr({ version: 4, base: pool.base + BigInt(b * 64), prefix: 26 });
    const block = newBlock({ cidr, sequenceNumber: 1n, affinity: `host:${host(b % HOSTS)}` });
    await uds.create({
      key: { kind: 'IPAMBlock', cidr },
      value: {
        ...block,
        allocations: block.allocations.map((a, o) => (o < 3 ? 0 : a)),
        unallocated: block.unallocated.slice(3),
        attributes: [{ handleId: 'x' }],
      },
    });
  }
  const util: number[] = [];
  for (let k = 0; k < 5; k++) await timed(util, () => uclient.getUtilization());
  const sorted = [...util].sort((a, b) => a - b);
  results.push({
    name: `getUtilization over ${UTILIZATION_BLOCKS} blocks (median of 5)`,
    value: percentile(sorted, 50),
    unit: 'ms',
    better: 'lower',
    target: '< 500 ms',
  });

  writeBenchResults('ipam-core', {
    title: 'ipam-core (in-process, memory store)',
    command: 'pnpm bench --filter=@netledger/bench',
    notes:
      'Sequential calls from one client in one process. The memory store shares deep-frozen values (no codec), so this measures the IPAM logic; the etcd and CNI sections measure real stores.',
    results,
  });
}

await main();
