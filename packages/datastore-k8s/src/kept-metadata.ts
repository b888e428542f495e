// What an update of an IPAM object carries over from the object it replaces. netledger's IPAM values
// (blocks, affinities, handles, the IPAM config) hold no object metadata, and an update is a PUT of
// the whole object: built from the value alone it would drop what Calico, a controller or a user
// put on the object (labels, annotations, finalizers, owner references). Calico's own update drops
// them; netledger keeps them. Pure.
import type { JsonObject } from './ipam-crd-codec.js';
import { REWRITTEN } from './resource-crd-codec.js';

const isObject = (v: unknown): v is JsonObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The metadata fields an update keeps (the API server owns the others, or they are the key's). */
const KEPT = ['labels', 'annotations', 'finalizers', 'ownerReferences'] as const;

/**
 * The metadata of a stored object that an update keeps: its labels, annotations (without
 * netledger's rewrite mark, which only the write that needs it sets), finalizers and owner
 * references; absent or empty ones are left out.
 */
export function keptMetadata(object: JsonObject): JsonObject {
  const meta = isObject(object.metadata) ? object.metadata : {};
  const out: JsonObject = {};
  for (const field of KEPT) {
    let v = meta[field];
    if (field === 'annotations' && isObject(v) && REWRITTEN in v) {
      v = { ...v };
      delete v[REWRITTEN];
    }
    const empty = isObject(v) ? Object.keys(v).length === 0 : !Array.isArray(v) || v.length === 0;
    if (!empty) out[field] = v!;
  }
  return out;
}

/**
 * `body` with `kept` (from {@link keptMetadata}) merged into its metadata: labels and annotations
 * key by key with the body's winning (the affinity labels and Calico's annotation are the
 * writer's), finalizers and owner references as stored. Never changes its arguments.
 */
export function withKeptMetadata(body: JsonObject, kept: JsonObject): JsonObject {
  const meta = isObject(body.metadata) ? body.metadata : {};
  const merged: JsonObject = { ...meta };
  for (const field of KEPT) {
    const old = kept[field];
    if (old === undefined) continue;
    const own = meta[field];
    merged[field] = isObject(old) ? { ...old, ...(isObject(own) ? own : {}) } : (own ?? old);
  }
  return { ...body, metadata: merged };
}
