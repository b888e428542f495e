import type { AllocationBlock } from '../model/block.js';
import { blockGeometry } from './block-geometry.js';

/** What can be structurally wrong with a block. */
type BlockProblemCode =
  | 'MissingAttribute'
  | 'UnreferencedAttribute'
  | 'ReleasedInFuture'
  | 'FreeOutsideBlock'
  | 'FreeTwice'
  | 'AllocatedAndFree'
  | 'CountMismatch'
  | 'AllocationsSize';

/** One structural problem of a block, with calicoctl's words for it where calicoctl has them. */
export interface BlockProblem {
  readonly code: BlockProblemCode;
  readonly message: string;
  readonly ordinal?: number;
  readonly attributeIndex?: number;
}

/** Options of {@link findBlockProblems}. */
export interface FindBlockProblemsOptions {
  /** Judges `releasedAt` in the future (clock skew); without it, release times are not judged. */
  readonly nowMs?: number;
}

/**
 * Every structural problem of a block (empty when it is sound), in the order calicoctl's
 * `validateBlock` looks for them, so the first is the one calicoctl reports: allocations pointing
 * at missing attributes; attributes no allocation references or released in the future; free
 * ordinals outside the block, queued twice or also allocated; allocated + free != the block's
 * size; and last (not checked by calicoctl) an allocations array of the wrong length. Pure.
 */
export function findBlockProblems(
  block: AllocationBlock,
  options: FindBlockProblemsOptions = {},
): BlockProblem[] {
  const { size } = blockGeometry(block.cidr);
  const allocations = allocationProblems(block, size);
  const problems: BlockProblem[] = [
    ...allocations.problems,
    ...attributeProblems(block, allocations.referenced, options.nowMs),
    ...freeListProblems(block, size),
  ];
  const total = block.unallocated.length + allocations.allocated;
  if (total !== size) {
    problems.push({
      code: 'CountMismatch',
      message: `expected ${size} addresses in this block, but Unallocated (${block.unallocated.length}) + Allocated (${allocations.allocated}) = ${total}`,
    });
  }
  if (block.allocations.length !== size) {
    problems.push({
      code: 'AllocationsSize',
      message: `the allocations array has ${block.allocations.length} entries for a block of ${size} addresses`,
    });
  }
  return problems;
}

/** Allocations indexing no attribute; the attributes referenced and how many ordinals are allocated. */
function allocationProblems(
  block: AllocationBlock,
  size: number,
): { problems: BlockProblem[]; referenced: Set<number>; allocated: number } {
  const problems: BlockProblem[] = [];
  const referenced = new Set<number>();
  let allocated = 0;
  for (let o = 0; o < size; o++) {
    const idx = block.allocations[o];
    if (idx === null || idx === undefined) continue;
    if (idx < 0 || idx >= block.attributes.length) {
      problems.push({
        code: 'MissingAttribute',
        message: `allocation ${o} indexes a nonexistent attribute ${idx}`,
        ordinal: o,
        attributeIndex: idx,
      });
      continue;
    }
    referenced.add(idx);
    allocated++;
  }
  return { problems, referenced, allocated };
}

/** Attributes no allocation references, and (given the time) attributes released in the future. */
function attributeProblems(
  block: AllocationBlock,
  referenced: ReadonlySet<number>,
  nowMs: number | undefined,
): BlockProblem[] {
  const problems: BlockProblem[] = [];
  block.attributes.forEach((attribute, i) => {
    if (!referenced.has(i)) {
      problems.push({
        code: 'UnreferencedAttribute',
        message: `attribute index ${i} exists but is not indexed by an allocation`,
        attributeIndex: i,
      });
    }
    const releasedAt = attribute.releasedAt;
    if (nowMs !== undefined && releasedAt !== undefined && Date.parse(releasedAt) > nowMs) {
      problems.push({
        code: 'ReleasedInFuture',
        message: `attribute index ${i} has releasedAt in the future, suggesting clock skew`,
        attributeIndex: i,
      });
    }
  });
  return problems;
}

/** Free ordinals outside the block, queued twice, or also allocated. */
function freeListProblems(block: AllocationBlock, size: number): BlockProblem[] {
  const problems: BlockProblem[] = [];
  const queued = new Set<number>();
  for (const o of block.unallocated) {
    if (o < 0 || o >= size) {
      problems.push({
        code: 'FreeOutsideBlock',
        message: `ordinal ${o} appears in the Unallocated array but is out of the block`,
        ordinal: o,
      });
    } else if (queued.has(o)) {
      problems.push({
        code: 'FreeTwice',
        message: `ordinal ${o} appears more than once in Unallocated array`,
        ordinal: o,
      });
    } else if (block.allocations[o] !== null && block.allocations[o] !== undefined) {
      problems.push({
        code: 'AllocatedAndFree',
        message: `ordinal ${o} is allocated but appears in Unallocated`,
        ordinal: o,
      });
    }
    queued.add(o);
  }
  return problems;
}
