// Calico's v3 resources (IPPool, IPReservation, ClusterInformation) in their crd.projectcalico.org/v1
// CRDs: KDD stores the v3 spec unchanged, so only the object metadata needs care. The API server
// owns uid, resourceVersion, generation, creationTimestamp and managedFields: they are not part of
// the value (the uid and resourceVersion are the KVPair's `uid` and `revision`).
import type {
  ClusterInformation,
  DatastoreKey,
  IPPool,
  IPReservation,
  JsonValue,
} from '@netledger/ipam-core';
import { decodeValue, stringifyJson } from '@netledger/ipam-core';
import type { JsonObject } from './ipam-crd-codec.js';
import { BadSpec } from './ipam-crd-codec.js';

/** The resource kinds stored as plain CRD objects. */
export type ResourceKind = 'IPPool' | 'IPReservation' | 'ClusterInformation';
type ResourceValue = IPPool | IPReservation | ClusterInformation;

/** Metadata the API server sets: never written by netledger and not part of a value. */
const SERVER_META = new Set([
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'managedFields',
  'selfLink',
  'deletionGracePeriodSeconds',
]);

/** Metadata a writer may set (deletionTimestamp is read-only but read: terminating pools). */
const WRITABLE_META = new Set(['name', 'labels', 'annotations', 'finalizers', 'ownerReferences']);

/**
 * Defaults the IPPool CRD applies on write. ipam-core applies the same ones on read
 * (`withPoolDefaults`), so a stored value equal to the default is read as absent: a pool reads
 * back as it was written.
 */
const POOL_CRD_DEFAULTS: Readonly<Record<string, string>> = {
  assignmentMode: 'Automatic',
  nodeSelector: 'all()',
};

const isObject = (v: unknown): v is JsonObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const isEmpty = (v: unknown): boolean =>
  v === undefined ||
  v === null ||
  (isObject(v) && Object.keys(v).length === 0) ||
  (Array.isArray(v) && v.length === 0);

/** The annotation marking a rewrite of an unchanged object (see the datastore's update). */
export const REWRITTEN = 'netledger.io/rewritten-at';

function withoutRewritten(out: JsonObject): JsonObject {
  const a = out.annotations;
  if (isObject(a) && REWRITTEN in a) {
    const rest = { ...a };
    delete rest[REWRITTEN];
    if (Object.keys(rest).length > 0) out.annotations = rest;
    else delete out.annotations;
  }
  return out;
}

/** The metadata to send for a value: what a writer may set, with the name of the key. */
export function writableMetadata(metadata: object, name: string): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(metadata)) {
    if (WRITABLE_META.has(k) && !isEmpty(v)) out[k] = v as JsonValue;
  }
  out.name = name;
  return withoutRewritten(out);
}

/** The metadata of a value read from the API server (server-owned fields removed). */
export function valueMetadata(raw: JsonValue | undefined): JsonObject {
  if (!isObject(raw)) throw new BadSpec('metadata is missing');
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(raw)) {
    if (!SERVER_META.has(k) && !isEmpty(v)) out[k] = v;
  }
  return withoutRewritten(out);
}

/**
 * The annotation keeping an IPReservation's entries as written when the CRD could not take them
 * so: its `reservedCIDRs` items are `format: cidr`, so a bare address (which Calico's v3 API
 * accepts, meaning /32 or /128) is stored as a host CIDR and read back as written.
 */
export const RESERVED_AS_WRITTEN = 'netledger.io/reserved-cidrs-as-written';

const hostCidr = (entry: string): string =>
  entry.includes('/') ? entry : `${entry.trim()}/${entry.includes(':') ? 128 : 32}`;

/** The CRD object body for a resource value (status is the status subresource's: not sent). */
export function encodeResource(
  key: DatastoreKey<ResourceKind>,
  value: ResourceValue,
): { metadata: JsonObject; spec: JsonObject } {
  const metadata = writableMetadata(value.metadata, key.name);
  const spec = { ...(value.spec as JsonObject) };
  if (key.kind === 'IPReservation' && Array.isArray(spec.reservedCIDRs)) {
    const written = spec.reservedCIDRs.filter((c): c is string => typeof c === 'string');
    const stored = written.map(hostCidr);
    spec.reservedCIDRs = stored;
    const annotations = { ...(metadata.annotations as JsonObject | undefined) };
    delete annotations[RESERVED_AS_WRITTEN];
    if (stored.some((c, i) => c !== written[i])) {
      annotations[RESERVED_AS_WRITTEN] = JSON.stringify(written);
    }
    if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
    else delete metadata.annotations;
  }
  return { metadata, spec };
}

/** The entries as written, when the annotation still describes what is stored. */
function reservedAsWritten(metadata: JsonObject, spec: JsonObject): void {
  const annotations = metadata.annotations as JsonObject | undefined;
  const text = annotations?.[RESERVED_AS_WRITTEN];
  if (annotations === undefined || typeof text !== 'string') return;
  const rest = { ...annotations };
  delete rest[RESERVED_AS_WRITTEN];
  if (Object.keys(rest).length > 0) metadata.annotations = rest;
  else delete metadata.annotations;
  let written: unknown;
  try {
    written = JSON.parse(text);
  } catch {
    return;
  }
  const stored = spec.reservedCIDRs;
  if (
    Array.isArray(written) &&
    Array.isArray(stored) &&
    written.length === stored.length &&
    written.every((w, i) => typeof w === 'string' && hostCidr(w) === stored[i])
  ) {
    spec.reservedCIDRs = written as string[];
  }
}

/** A resource value from its CRD object; `CorruptValue` names the key. */
export function decodeResource<K extends ResourceKind>(
  key: DatastoreKey<K>,
  object: JsonObject,
): ResourceValue {
  const metadata = valueMetadata(object.metadata);
  const spec: JsonObject = isObject(object.spec) ? { ...object.spec } : {};
  if (key.kind === 'IPPool') {
    for (const [field, dflt] of Object.entries(POOL_CRD_DEFAULTS)) {
      if (spec[field] === dflt) delete spec[field];
    }
  }
  if (key.kind === 'IPReservation') reservedAsWritten(metadata, spec);
  const status =
    key.kind === 'IPPool' && isObject(object.status) && !isEmpty(object.status)
      ? object.status
      : undefined;
  return decodeValue(key, stringifyJson({ metadata, spec, ...(status && { status }) }));
}
