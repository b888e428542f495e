import type { AllocationBlock } from '../model/block.js';
import { blockGeometry } from './block-geometry.js';

/**
 * Checks a block's invariants and returns what is wrong (empty when sound): allocations sized to
 * the block; every allocation points at an attribute; every attribute is referenced; the free
 * queue has no duplicates and no allocated ordinal; allocated + free = every ordinal.
 */
export function checkBlockInvariants(block: AllocationBlock): string[] {
  const problems: string[] = [];
  const { size } = blockGeometry(block.cidr);
  if (block.allocations.length !== size) {
    problems.push(
      `allocations has ${block.allocations.length} entries, block has ${size} addresses`,
    );
  }
  const referenced = new Set<number>();
  let allocated = 0;
  block.allocations.forEach((idx, o) => {
    if (idx === null) return;
    allocated++;
    referenced.add(idx);
    if (idx < 0 || idx >= block.attributes.length)
      problems.push(`ordinal ${o} points at missing attribute ${idx}`);
  });
  block.attributes.forEach((_, i) => {
    if (!referenced.has(i)) problems.push(`attribute ${i} is not referenced`);
  });
  const seen = new Set<number>();
  for (const o of block.unallocated) {
    if (seen.has(o)) problems.push(`ordinal ${o} is twice in the free queue`);
    seen.add(o);
    if (o < 0 || o >= size) problems.push(`free ordinal ${o} is outside the block`);
    else if (block.allocations[o] !== null)
      problems.push(`ordinal ${o} is both allocated and free`);
  }
  if (allocated + seen.size !== size) {
    problems.push(`${allocated} allocated + ${seen.size} free != ${size} ordinals`);
  }
  return problems;
}
