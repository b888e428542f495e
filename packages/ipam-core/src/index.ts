export { IpamError, isIpamError } from './errors.js';
export type { IpamErrorCode, IpamErrorKind, IpamErrorOptions } from './errors.js';
export { DATASTORE_RETRIES, withCasRetry } from './cas-retry.js';
export type { CasRetryOptions } from './cas-retry.js';

export { AttributeKey } from './model/block.js';
export type { AllocationAttribute, AllocationBlock } from './model/block.js';
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
  goOrderedObject,
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
export { createWatchHub } from './datastore/watch-hub.js';
export type { Subscription, WatchHub, WatchHubOptions } from './datastore/watch-hub.js';
export { SortedKeys } from './datastore/sorted-keys.js';
