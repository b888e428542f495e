// @netledger/ipam-core/block: the pure block functions (plain data in, plain data out): geometry,
// allocation and release, garbage collection, queries, the allocation read model, the structural
// checks, and utilization computed from blocks.

export {
  ORPHANED_BLOCKS_NAME,
  computeUtilization,
  numReservedIpsInCidr,
} from './utilization/utilization.js';
export type { UtilizationInput } from './utilization/utilization.js';
export { WINDOWS_RESERVED_HANDLE, sanitizeHandle } from './block/block-attributes.js';
export { newBlock } from './block/new-block.js';
export type { HostReservedAttr, NewBlockArgs } from './block/new-block.js';
export { garbageCollectBlock, pruneAttributes } from './block/garbage-collect.js';
export { autoAssignFromBlock } from './block/block-auto-assign.js';
export { assignInBlock } from './block/block-assign.js';
export {
  releaseByHandleFromBlock,
  releaseFromBlock,
  toRfc3339Seconds,
} from './block/block-release.js';
export type { ReleaseClock } from './block/block-release.js';
export {
  affinityString,
  allocationAttributesForIp,
  inUseIps,
  ipsByHandleInBlock,
  isBlockEmpty,
  numFreeAddresses,
  numReservedAddresses,
  parseAffinity,
  sequenceNumberForOrdinal,
} from './block/block-queries.js';
export { ownerMatches } from './block/owner-attributes.js';
export type { AttributeOwner } from './block/owner-attributes.js';
export { allocationKind, blockAllocations } from './block/block-allocations.js';
export type { AllocationKind, BlockAllocation } from './block/block-allocations.js';
export { findBlockProblems } from './block/block-problems.js';
export type {
  BlockProblem,
  BlockProblemCode,
  FindBlockProblemsOptions,
} from './block/block-problems.js';
export { blockGeometry, ipToOrdinal, ordinalToIp } from './block/block-geometry.js';
