import { createIpamClient, createMemoryDatastore } from '@netledger/ipam-core';
import type { Datastore, IpamClient } from '@netledger/ipam-core';

/** A fixed clock for tests: 2026-01-01T00:00:00Z plus what `advance` adds. */
export function testClock(start = Date.UTC(2026, 0, 1)): {
  now(): number;
  advance(ms: number): void;
} {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

/** A memory datastore and an IPAM client on it with a fixed clock and a seeded random. */
export function memoryStore(): {
  datastore: Datastore;
  ipam: IpamClient;
  clock: ReturnType<typeof testClock>;
} {
  const datastore = createMemoryDatastore();
  const clock = testClock();
  let seed = 1;
  const random = { next: () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646 };
  return { datastore, ipam: createIpamClient({ datastore, clock, random }), clock };
}

/** Assigns explicit addresses to a handle on a node (creating the node if needed). */
export async function assign(
  ipam: IpamClient,
  node: string,
  handle: string,
  ips: readonly string[],
  attrs?: Record<string, string>,
): Promise<void> {
  await ipam.nodes.get(node).catch(() => ipam.nodes.create({ metadata: { name: node } }));
  for (const ip of ips) {
    await ipam.assignIp({
      ip,
      hostname: node,
      handleId: handle,
      intendedUse: 'Workload',
      attrs: { node, ...attrs },
    });
  }
}
