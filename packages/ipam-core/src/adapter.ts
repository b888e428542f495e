// @netledger/ipam-core/adapter: what writing a Datastore adapter takes: Calico's key layout and
// value codec (Go's bytes), the compare-and-swap rules and their errors, a watch hub, the CAS retry
// loop, and the watch-fed read mirror for long-lived clients.

export { withCasRetry } from './cas-retry.js';
export {
  describeKey,
  ipVersionOf,
  keyToPath,
  listPrefixes,
  matchesListOptions,
  pathToKey,
} from './model/keys.js';
export type { ValueByKind } from './model/keys.js';
export { parseJson, stringifyJson } from './codec/json.js';
export type { JsonValue } from './codec/json.js';
export { decodeValue, encodeValue } from './codec/value-codec.js';
export { encodeCheckedValue } from './codec/encode-checked-value.js';
export { annotationsProblems, assertObjectSize } from './limits/object-limits.js';
export type { CheckedValue } from './codec/encode-checked-value.js';
export { applyTransaction, assertDistinctKeys, toMutation } from './datastore/apply-transaction.js';
export { forwardingDatastore } from './datastore/forwarding-datastore.js';
export type { EntryChange, Mutation, StoredEntry } from './datastore/apply-mutation.js';
export { doesNotExistError } from './datastore/store-errors.js';
export { createWatchHub } from './datastore/watch-hub.js';
export type { WatchHub } from './datastore/watch-hub.js';
export { SortedKeys } from './datastore/sorted-keys.js';
export { createMirroredDatastore } from './datastore/mirrored-datastore.js';
export { DEFAULT_MIRRORED_KINDS } from './datastore/mirror-scope.js';
export type { MirroredDatastore } from './datastore/mirrored-datastore.js';
export { withCreationMetadata } from './resources/creation-metadata.js';
