import type { AllocationBlock } from '@netledger/ipam-core';
import { blockGeometry } from '@netledger/ipam-core';

/**
 * calicoctl's `validateBlock`: the first structural problem of a block, in Calico's exact words,
 * or undefined when it is sound. `nowMs` judges `releasedAt` in the future (clock skew).
 */
export function validateBlock(block: AllocationBlock, nowMs: number): string | undefined {
  const size = blockGeometry(block.cidr).size;
  const seenAttrs = new Set<number>();
  const seenOrdinals = new Set<number>();
  for (let o = 0; o < size; o++) {
    const idx = block.allocations[o];
    if (idx === null || idx === undefined) continue;
    if (idx < 0 || idx >= block.attributes.length) {
      return `allocation ${o} indexes a nonexistent attribute ${idx}`;
    }
    seenAttrs.add(idx);
    seenOrdinals.add(o);
  }
  for (let i = 0; i < block.attributes.length; i++) {
    if (!seenAttrs.has(i)) return `attribute index ${i} exists but is not indexed by an allocation`;
    const releasedAt = block.attributes[i]!.releasedAt;
    if (releasedAt !== undefined && Date.parse(releasedAt) > nowMs) {
      return `attribute index ${i} has releasedAt in the future, suggesting clock skew`;
    }
  }
  for (let i = 0; i < block.unallocated.length; i++) {
    const o = block.unallocated[i]!;
    if (o < 0 || o >= block.allocations.length) {
      return `ordinal ${o} appears in the Unallocated array but is out of the block`;
    }
    if (block.unallocated.slice(0, i).includes(o)) {
      return `ordinal ${o} appears more than once in Unallocated array`;
    }
    if (seenOrdinals.has(o)) return `ordinal ${o} is allocated but appears in Unallocated`;
  }
  const total = block.unallocated.length + seenOrdinals.size;
  if (total !== size) {
    return `expected ${size} addresses in this block, but Unallocated (${block.unallocated.length}) + Allocated (${seenOrdinals.size}) = ${total}`;
  }
  return undefined;
}
