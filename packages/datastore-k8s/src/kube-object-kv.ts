// The read side of the conversion layer: an API object as the API server answered it, turned into
// a KVPair, or refused as CorruptValue naming the API server and the object. Pure: no request here.
import type { KVPair, Kind } from '@netledger/ipam-core';
import { IpamError, isIpamError } from '@netledger/ipam-core';
import type { CrdKind } from './crd-kinds.js';
import { decodeCrd } from './crd-kinds.js';
import type { JsonObject } from './ipam-crd-codec.js';
import { BadSpec } from './ipam-crd-codec.js';
import { decodeNode } from './node-codec.js';

/** True for a JSON object (not null, not an array). */
export const isObject = (v: unknown): v is JsonObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
/** An object's metadata (empty when it has none). */
export const meta = (o: JsonObject): JsonObject => (isObject(o.metadata) ? o.metadata : {});
/** A string field of an object's metadata. */
export const metaString = (o: JsonObject, field: string): string | undefined => {
  const v = meta(o)[field];
  return typeof v === 'string' ? v : undefined;
};

/**
 * The `CorruptValue` error for an object that is not a valid Calico object, naming the API server
 * and the object (`ipamblocks/10-0-0-0-26`); an IpamError of another code is rethrown as it is.
 */
export function corruptObject(o: { server: string; object: string; cause: unknown }): never {
  const { server, object, cause } = o;
  if (isIpamError(cause) && cause.code !== 'CorruptValue') throw cause;
  const why = cause instanceof Error ? cause.message : String(cause);
  throw new IpamError(
    'CorruptValue',
    `kube-apiserver at ${server}: ${object} is not a valid Calico object: ${why}`,
    { identifier: object, cause },
  );
}

/**
 * The KVPair of an API object of `kind`, or undefined for an object netledger does not read (an
 * IPAMConfig not named `default`). Throws `CorruptValue` naming the object (see
 * {@link corruptObject}) when it is not Calico's shape; never changes `object`.
 */
export function decodeKubeObject(o: {
  server: string;
  kind: Kind;
  object: JsonObject;
  /** The collection the object is from, for messages (`ipamblocks`, `nodes`). */
  resource: string;
}): KVPair | undefined {
  const { server, kind, object, resource } = o;
  // An object without a name is still named, so the error says which list held it.
  const name = metaString(object, 'name') || '(no name)';
  const where = `${resource}/${name}`;
  try {
    const decoded =
      kind === 'Node'
        ? { key: { kind: 'Node' as const, name }, value: decodeNode(object) }
        : decodeCrd(kind as CrdKind, object);
    if (!decoded) return undefined;
    const uid = metaString(object, 'uid');
    return {
      key: decoded.key,
      value: decoded.value,
      revision: metaString(object, 'resourceVersion') ?? '',
      ...(uid !== undefined && { uid }),
    };
  } catch (e) {
    if (e instanceof BadSpec || isIpamError(e, 'CorruptValue'))
      corruptObject({ server, object: where, cause: e });
    throw e;
  }
}
