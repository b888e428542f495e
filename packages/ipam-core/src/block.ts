// @netledger/ipam-core/block: the pure block functions (plain data in, plain data out) that tools
// reading or checking blocks use: a new block, queries, the allocation read model, the structural
// checks, and utilization computed from blocks.

export { computeUtilization, numReservedIpsInCidr } from './utilization/utilization.js';
export { sanitizeHandle } from './block/block-attributes.js';
export { newBlock } from './block/new-block.js';
export { isBlockEmpty, parseAffinity } from './block/block-queries.js';
export { blockAllocations } from './block/block-allocations.js';
export type { AllocationKind, BlockAllocation } from './block/block-allocations.js';
export { findBlockProblems } from './block/block-problems.js';
