import { cidrSize } from './cidr.js';
import type { Cidr } from './cidr.js';
import { IpSet } from './ip-set.js';

/** Input of {@link countPoolSpace}. */
export interface PoolSpaceInput {
  /** The IP pool's CIDR. */
  readonly pool: Cidr;
  /** Reserved CIDRs; they may overlap, nest, repeat, or lie outside the pool. */
  readonly reservations: readonly Cidr[];
  /** The allocation blocks carved from the pool so far. */
  readonly blocks: readonly Cidr[];
}

/** Address counts for a whole pool, including space no block covers yet. */
export interface PoolSpace {
  /** Addresses in the pool CIDR. */
  readonly capacity: bigint;
  /** Pool addresses covered by a reservation, whether or not they are also allocated. */
  readonly reserved: bigint;
  /** Pool addresses neither reserved nor inside a block (blocks count their own free space). */
  readonly availableOutsideBlocks: bigint;
}

/**
 * Calico's `countPoolSpace` as set arithmetic: assignable = pool - reservations;
 * reserved = |pool| - |assignable|; availableOutsideBlocks = |assignable - blocks|.
 * Counts are exact bigints where Calico saturates at MaxInt.
 */
export function countPoolSpace(a: PoolSpaceInput): PoolSpace {
  const capacity = cidrSize(a.pool);
  const assignable = IpSet.fromCidrs([a.pool]).difference(IpSet.fromCidrs(a.reservations));
  const outsideBlocks = assignable.difference(IpSet.fromCidrs(a.blocks));
  return {
    capacity,
    reserved: capacity - assignable.size(),
    availableOutsideBlocks: outsideBlocks.size(),
  };
}
