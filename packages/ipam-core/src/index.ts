// @netledger/ipam-core: Calico's IPAM client over a Datastore port. What library users need: the client
// (createIpamClient) with its results and errors, the Datastore port and the in-memory
// store, the model's types, Clock/Random, and the validation and pool-qualification rules a caller
// may want to run before writing. Helpers for writing a store adapter are in
// `@netledger/ipam-core/adapter`; the pure block functions in `@netledger/ipam-core/block`.

export { IpamError, isIpamError } from './errors.js';
export type { IpamErrorCode } from './errors.js';
export type { AllocationAttribute, AllocationBlock } from './model/block.js';
export type { AffinityType, BlockAffinity } from './model/block-affinity.js';
export type { IpamHandle } from './model/ipam-handle.js';
export type { IpamConfigValue } from './model/ipam-config.js';
export type {
  ClusterInformation,
  IPPool,
  IPPoolAllowedUse,
  IPPoolSpec,
  IPReservation,
  Node,
} from './model/resources.js';
export { KINDS } from './model/keys.js';
export type { DatastoreKey, Kind, ListOptions } from './model/keys.js';
export type {
  Datastore,
  DeleteOptions,
  KVPair,
  ListResult,
  NewKVPair,
  TransactionWrite,
  WatchEvent,
  WatchOptions,
  WatchStream,
} from './datastore/datastore.js';
export { createMemoryDatastore } from './datastore/memory-datastore.js';
export { validatePool } from './pools/pool-validation.js';
export { enabledPools, isTerminating } from './pools/enabled-pools.js';
export { filterPoolsByUse, selectsNode } from './pools/pool-qualification.js';
export { DEFAULT_IPAM_CONFIG } from './config/ipam-config.js';
export type { IpamConfig } from './config/ipam-config.js';
export type { ResourceClient } from './resources/resource-client.js';
export { validateReservation } from './resources/reservation-validation.js';
export { MAX_RESOURCE_NAME_LENGTH } from './model/resource-name.js';
export {
  dns1123LabelProblem,
  dns1123SubdomainProblem,
  validateObjectMeta,
} from './limits/object-limits.js';
export { unknownResourceFields } from './codec/unknown-fields.js';
export { goUtcTimestamp } from './codec/go-time.js';
export type { PoolUtilization } from './utilization/utilization.js';
export { countToBigInt } from './utilization/count.js';
export type { Count } from './utilization/count.js';
export type { ReleaseOptions } from './block/block-release.js';
export { createIpamClient } from './client/ipam-client.js';
export type { IpamClient } from './client/ipam-client.js';
export { formatIpamReport } from './client/ipam-report.js';
export type { IpamReporter } from './client/ipam-report.js';
export type { IpamAssignments } from './client/assignments.js';
export { partialFulfillmentError } from './client/assignments.js';
export type { Clock, Random } from './client/clock.js';
export { systemClock, systemRandom } from './client/clock.js';
