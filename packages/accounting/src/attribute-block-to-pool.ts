import { cidrsOverlap } from './cidr.js';
import type { Cidr } from './cidr.js';

/**
 * The pool a block belongs to, as Calico's `GetUtilization` decides it: the first pool, in list
 * order, whose CIDR overlaps the block. `undefined` when none does (an orphaned block).
 */
export function attributeBlockToPool<P extends { readonly cidr: Cidr }>(
  block: Cidr,
  pools: readonly P[],
): P | undefined {
  return pools.find((pool) => cidrsOverlap(pool.cidr, block));
}
