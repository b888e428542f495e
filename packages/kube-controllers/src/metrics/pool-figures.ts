import { parseCidr } from '@netledger/accounting';
import type { AllocationBlock, IPPool, IPReservation } from '@netledger/ipam-core';
import { countToBigInt } from '@netledger/ipam-core';
import { computeUtilization, numReservedIpsInCidr } from '@netledger/ipam-core/block';

/** A pool's size figures, as the `ipam_ippool_*` gauges show them. */
export interface PoolFigures {
  /** Addresses in the pool's CIDR. */
  readonly size: number;
  /** Addresses an IPReservation covers. */
  readonly reserved: number;
  /** Addresses neither allocated (cooling ones count as allocated) nor reserved. */
  readonly available: number;
  /** Blocks of the pool not claimed yet. */
  readonly freeBlocks: number;
}

/**
 * Size, reserved, available and free-block figures of each pool, by pool name: ipam-core's
 * utilization arithmetic (the same as `netledgerctl ipam show`) over the given blocks and
 * reservations. `blocksInPool` counts each pool's existing blocks. Pure; shared by the IPAM GC's
 * gauges and the LoadBalancer controller's.
 */
export function computePoolFigures(args: {
  readonly pools: readonly IPPool[];
  readonly blocks: readonly AllocationBlock[];
  readonly reservations: readonly IPReservation[];
  readonly blocksInPool: (pool: string) => number;
}): Map<string, PoolFigures> {
  const utilization = new Map(
    computeUtilization({
      pools: args.pools,
      blocks: args.blocks,
      reservations: args.reservations,
    }).map((u) => [u.name, u]),
  );
  const out = new Map<string, PoolFigures>();
  for (const pool of args.pools) {
    const name = pool.metadata.name;
    const cidr = parseCidr(pool.spec.cidr, { strict: false });
    const bits = cidr.version === 4 ? 32 : 128;
    const blockSize = pool.spec.blockSize ?? (cidr.version === 4 ? 26 : 122);
    const capacityBlocks = 2 ** Math.max(0, blockSize - cidr.prefix);
    const u = utilization.get(name);
    out.set(name, {
      size: 2 ** (bits - cidr.prefix),
      reserved: Number(countToBigInt(numReservedIpsInCidr(pool.spec.cidr, args.reservations))),
      available: u ? Number(countToBigInt(u.available)) : 0,
      freeBlocks: Math.max(0, capacityBlocks - args.blocksInPool(name)),
    });
  }
  return out;
}
