// @netledger/ipam-core/adapter: what writing a Datastore adapter takes: Calico's key layout and
// value codec (Go's bytes), the compare-and-swap rules and their errors, a watch hub, the CAS retry
// loop, and the watch-fed read mirror for long-lived clients.

export { DATASTORE_RETRIES, withCasRetry } from './cas-retry.js';
export type { CasRetryOptions } from './cas-retry.js';
export {
  RESOURCE_PLURALS,
  describeKey,
  ipVersionOf,
  keyToPath,
  listPrefixes,
  matchesListOptions,
  pathToKey,
} from './model/keys.js';
export type { KeyByKind, ValueByKind } from './model/keys.js';
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
export { encodeCheckedValue } from './codec/encode-checked-value.js';
export { annotationsProblems, assertObjectSize } from './limits/object-limits.js';
export type { CheckedValue } from './codec/encode-checked-value.js';
export { applyMutation } from './datastore/apply-mutation.js';
export { applyTransaction, assertDistinctKeys, toMutation } from './datastore/apply-transaction.js';
export { forwardingDatastore } from './datastore/forwarding-datastore.js';
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
  refusesKey,
  updateConflictError,
} from './datastore/store-errors.js';
export { createWatchHub } from './datastore/watch-hub.js';
export type { Subscription, WatchHub, WatchHubOptions } from './datastore/watch-hub.js';
export { SortedKeys } from './datastore/sorted-keys.js';
export { createMirroredDatastore } from './datastore/mirrored-datastore.js';
export { DEFAULT_MIRRORED_KINDS } from './datastore/mirror-scope.js';
export type { MirrorTimers } from './datastore/mirror-sync.js';
export type {
  MirroredDatastore,
  MirroredDatastoreOptions,
} from './datastore/mirrored-datastore.js';
export { withCreationMetadata } from './resources/creation-metadata.js';
export type { CreationPorts } from './resources/creation-metadata.js';
