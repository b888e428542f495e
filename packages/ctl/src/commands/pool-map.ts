import { formatCidr, parseCidr } from '@netledger/accounting';
import type { Datastore, IpamClient, PoolUtilization } from '@netledger/ipam-core';
import type { BorrowedIp } from './ipam-show.js';
import { renderUtilization, showBorrowed } from './ipam-show.js';
import type { PoolMap, PoolMapBlock } from './render-pool-map.js';
import { renderPoolMap } from './render-pool-map.js';

const byAddress = (a: PoolMapBlock, b: PoolMapBlock): number => {
  const x = parseCidr(a.cidr);
  const y = parseCidr(b.cidr);
  return x.version !== y.version ? x.version - y.version : x.base < y.base ? -1 : 1;
};

/**
 * The pool map's data from what `ipam show --show-blocks` and `--show-borrowed` read: per pool
 * (and the orphaned-blocks entries that hold blocks) its blocks in address order, each with its
 * affinity host (`affinities`: block CIDR to affinity), counts, and borrowed addresses. Pure.
 */
function buildPoolMap(input: {
  readonly usage: readonly PoolUtilization[];
  readonly affinities: ReadonlyMap<string, string | undefined>;
  readonly borrowed: readonly BorrowedIp[];
}): PoolMap {
  const borrowed = new Map<string, number>();
  for (const b of input.borrowed) borrowed.set(b.block, (borrowed.get(b.block) ?? 0) + 1);
  const pools = input.usage
    .filter((p) => parseCidr(p.cidr).prefix > 0 || p.blocks.length > 0)
    .map((p) => ({
      name: p.name,
      cidr: p.cidr,
      blocks: p.blocks
        .map((b): PoolMapBlock => {
          const affinity = input.affinities.get(b.cidr);
          const node = affinity?.startsWith('host:') ? affinity.slice(5) : undefined;
          return {
            cidr: b.cidr,
            ...(node !== undefined && { node }),
            capacity: Number(b.capacity),
            inUse: Number(b.inUse),
            reserved: Number(b.reserved),
            borrowed: borrowed.get(b.cidr) ?? 0,
          };
        })
        .sort(byAddress),
    }));
  return { pools, table: renderUtilization(input.usage, true) };
}

/**
 * `ipam show --show-blocks -o html`: reads the utilization, the blocks' affinities and the
 * borrowed addresses, and renders the self-contained pool map page. Reads only.
 */
export async function showPoolMap(
  ipam: IpamClient,
  datastore: Datastore,
): Promise<{ text: string }> {
  const usage = await ipam.getUtilization();
  const { items } = await datastore.list({ kind: 'IPAMBlock' });
  const affinities = new Map(
    items.map((kv) => [formatCidr(parseCidr(kv.value.cidr)), kv.value.affinity]),
  );
  const { data: borrowed } = await showBorrowed(datastore);
  return { text: renderPoolMap(buildPoolMap({ usage, affinities, borrowed })) };
}
