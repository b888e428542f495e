export { IpamError, isIpamError } from './errors.js';
export type { IpamErrorCode, IpamErrorKind, IpamErrorOptions } from './errors.js';
export { DATASTORE_RETRIES, withCasRetry } from './cas-retry.js';
export type { CasRetryOptions } from './cas-retry.js';

export { AttributeKey } from './model/block.js';
export type { AllocationAttribute, AllocationBlock } from './model/block.js';
export type { StoredJson, UnknownJsonKey } from './model/stored-json.js';
export type { AffinityType, BlockAffinity, BlockAffinityState } from './model/block-affinity.js';
export type { IpamHandle } from './model/ipam-handle.js';
export type { IpamConfigValue, VmAddressPersistence } from './model/ipam-config.js';
export type {
  AssignmentMode,
  ClusterInformation,
  Condition,
  IPPool,
  IPPoolAllowedUse,
  IPPoolSpec,
  IPReservation,
  IpamHostValue,
  Node,
  ObjectMeta,
} from './model/resources.js';
export {
  KINDS,
  RESOURCE_PLURALS,
  describeKey,
  ipVersionOf,
  keyToPath,
  listPrefixes,
  matchesListOptions,
  pathToKey,
} from './model/keys.js';
export type { DatastoreKey, KeyByKind, Kind, ListOptions, ValueByKind } from './model/keys.js';

export {
  JsonSyntaxError,
  RawJson,
  compareGoKeys,
  goOrderedObject,
  goString,
  parseJson,
  stringifyJson,
} from './codec/json.js';
export type { JsonValue } from './codec/json.js';
export { decodeValue, encodeValue } from './codec/value-codec.js';

export type {
  Datastore,
  DeleteOptions,
  KVPair,
  ListResult,
  NewKVPair,
  WatchEvent,
  WatchOptions,
  WatchStream,
} from './datastore/datastore.js';
export { createMemoryDatastore } from './datastore/memory-datastore.js';
export type { MemoryDatastoreOptions } from './datastore/memory-datastore.js';
export { applyMutation } from './datastore/apply-mutation.js';
export type {
  EntryChange,
  EntryState,
  Mutation,
  MutationContext,
  StoredEntry,
} from './datastore/apply-mutation.js';
export {
  alreadyExistsError,
  doesNotExistError,
  updateConflictError,
} from './datastore/store-errors.js';
export { createWatchHub } from './datastore/watch-hub.js';
export type { Subscription, WatchHub, WatchHubOptions } from './datastore/watch-hub.js';
export { SortedKeys } from './datastore/sorted-keys.js';
export { DEFAULT_MIRRORED_KINDS, createMirroredDatastore } from './datastore/mirrored-datastore.js';
export type {
  MirrorTimers,
  MirroredDatastore,
  MirroredDatastoreOptions,
} from './datastore/mirrored-datastore.js';

export { parseSelector } from './selector/selector.js';
export type { Selector } from './selector/selector.js';
export {
  DEFAULT_ALLOWED_USES,
  DEFAULT_BLOCK_SIZE,
  DEFAULT_NODE_SELECTOR,
  withPoolDefaults,
} from './pools/pool-defaults.js';
export { validatePool, validatePoolUpdate } from './pools/pool-validation.js';
export {
  enabledPools,
  isMarkedAllocatable,
  isMarkedUnallocatable,
  isTerminating,
} from './pools/enabled-pools.js';
export {
  determinePools,
  filterPoolsByUse,
  maxPrefixLength,
  selectsAutomatically,
  selectsNamespace,
  selectsNode,
} from './pools/pool-qualification.js';
export type {
  DeterminePoolsArgs,
  DeterminedPools,
  HostReservedRange,
  QualifyingNode,
} from './pools/pool-qualification.js';
export { createPoolClaim, poolMayUse } from './pools/pool-claim.js';
export type { MayUseQuery, PoolClaim } from './pools/pool-claim.js';
export { blockCidrForIp, poolForIp } from './pools/pool-for-ip.js';
export {
  DEFAULT_IPAM_CONFIG,
  DEFAULT_MAX_BLOCKS_PER_HOST,
  checkIpamConfigRules,
  effectiveMaxBlocks,
  ipamConfigFromStored,
  ipamConfigToStored,
  validateIpamConfig,
} from './config/ipam-config.js';
export type { IpamConfig } from './config/ipam-config.js';
export { createResourceClient, createResourceClients } from './resources/resource-client.js';
export type {
  ResourceClient,
  ResourceClients,
  ResourceClientsOptions,
  ResourceHooks,
  ResourceKind,
} from './resources/resource-client.js';
export type { PoolHooksOptions } from './resources/pool-hooks.js';
export { validateReservation } from './resources/reservation-validation.js';
export { MAX_RESOURCE_NAME_LENGTH, validateResourceName } from './model/resource-name.js';
export {
  ORPHANED_BLOCKS_NAME,
  computeUtilization,
  numReservedIpsInCidr,
} from './utilization/utilization.js';
export type {
  BlockUtilization,
  PoolUtilization,
  UtilizationInput,
} from './utilization/utilization.js';
export { countToBigInt, toCount } from './utilization/count.js';
export type { Count } from './utilization/count.js';

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
export type { ReleaseClock, ReleaseOptions } from './block/block-release.js';
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
export type {
  AttributeOwner,
  OwnerAttributePreconditions,
  OwnerAttributeUpdates,
} from './block/owner-attributes.js';
export { allocationKind, blockAllocations } from './block/block-allocations.js';
export type { AllocationKind, BlockAllocation } from './block/block-allocations.js';
export { findBlockProblems } from './block/block-problems.js';
export type {
  BlockProblem,
  BlockProblemCode,
  FindBlockProblemsOptions,
} from './block/block-problems.js';
export { blockGeometry, ipToOrdinal, ordinalToIp } from './block/block-geometry.js';

export { createIpamClient } from './client/ipam-client.js';
export type { IpamClient, IpamClientOptions } from './client/ipam-client.js';
export type { AssignIpArgs } from './client/assign-ip.js';
export type { AutoAssignArgs, IpamAssignments } from './client/assignments.js';
export { partialFulfillmentError } from './client/assignments.js';
export type { BlockArgs } from './client/ensure-block.js';
export type { AffinityConfig } from './client/ipam-context.js';
export type { ReleaseResult } from './client/release-ips.js';
export type { Clock, Random } from './client/clock.js';
export { systemClock, systemRandom } from './client/clock.js';
export { fnv1Hash32, randomBlockWalk, sequentialBlockWalk } from './client/block-walk.js';
export { createKeyedMutex } from './client/keyed-mutex.js';
export type { KeyedMutex } from './client/keyed-mutex.js';
