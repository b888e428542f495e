import { BlockBuilder } from '@netledger/testkit';
import type { Datastore, IpamClient } from '@netledger/ipam-core';

const ipv4 = (n: number): string => [24, 16, 8, 0].map((shift) => (n >>> shift) & 255).join('.');

/**
 * Seeds pools of /26 blocks straight into a store, as a busy cluster leaves them: the nodes hold
 * runs of 6 blocks in turn (the second pool's runs start 5 nodes later), `i * 7 % 65` of its addresses in use; every 9th block
 * lends an address to the next node (borrowed), every 13th block has no affinity, and one
 * IPReservation covers the first address of every 11th block. `pools[].base` is the pool's first
 * address as a number (IPv4).
 */
export async function seedPoolMap(
  store: { datastore: Datastore; ipam: IpamClient },
  options: {
    readonly pools: readonly { name: string; base: number; prefix: number; blocks: number }[];
    readonly nodes: number;
  },
): Promise<void> {
  const reserved: string[] = [];
  for (const [p, pool] of options.pools.entries()) {
    await store.ipam.pools.create({
      metadata: { name: pool.name },
      spec: { cidr: `${ipv4(pool.base)}/${pool.prefix}`, blockSize: 26 },
    });
    for (let i = 0; i < pool.blocks; i++) {
      const start = pool.base + i * 64;
      const cidr = `${ipv4(start)}/26`;
      const node = `node-${(Math.floor(i / 6) + p * 5) % options.nodes}`;
      const builder = new BlockBuilder(cidr);
      if (i % 13 !== 0) builder.affine(node);
      const used = (i * 7) % 65;
      const own = Array.from({ length: used }, (_, o) => o);
      if (i % 9 === 0 && used > 0) {
        builder.allocate(own.slice(1), `h-${cidr}`, { node });
        builder.allocate([0], `b-${cidr}`, { node: `node-${(i + 1) % options.nodes}` });
      } else if (used > 0) {
        builder.allocate(own, `h-${cidr}`, { node });
      }
      await store.datastore.create({ key: { kind: 'IPAMBlock', cidr }, value: builder.build() });
      if (i % 11 === 0) reserved.push(`${ipv4(start)}/32`);
    }
  }
  await store.ipam.reservations.create({
    metadata: { name: 'gateways' },
    spec: { reservedCIDRs: reserved },
  });
}
