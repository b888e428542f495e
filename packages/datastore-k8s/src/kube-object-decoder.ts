// API objects as KVPairs, remembering what an update of an IPAM object must keep of each.
import type { KVPair, Kind } from '@netledger/ipam-core';
import { CRD_KINDS, isCrdKind } from './crd-kinds.js';
import type { JsonObject } from './ipam-crd-codec.js';
import { keptMetadata } from './kept-metadata.js';
import type { KeptMetadataCache } from './kept-metadata-cache.js';
import { corruptObject, decodeKubeObject, isObject, metaString } from './kube-object-kv.js';

/** Decodes the objects of one API server. */
export interface KubeObjectDecoder {
  /** The KVPair of an object (undefined: not one of the kind); an IPAM object's kept metadata is remembered. */
  readonly toKv: (kind: Kind, object: JsonObject) => KVPair | undefined;
  /** The KVPair of an answer that must be one: else `Corrupt`, naming `object`. */
  readonly mustKv: <K extends Kind>(kind: K, body: unknown, object: string) => KVPair<K>;
}

/** A decoder for `server`'s objects that remembers kept metadata in `kept`. */
export function createKubeObjectDecoder(o: {
  readonly server: string;
  readonly resourceOf: (kind: Kind) => string;
  readonly kept: KeptMetadataCache;
}): KubeObjectDecoder {
  const { server, resourceOf, kept } = o;
  function toKv(kind: Kind, object: JsonObject): KVPair | undefined {
    const kv = decodeKubeObject({ server, kind, object, resource: resourceOf(kind) });
    if (kv && isCrdKind(kind) && CRD_KINDS[kind].ipam) {
      kept.remember(
        `${resourceOf(kind)}/${metaString(object, 'name')}`,
        kv.revision,
        keptMetadata(object),
      );
    }
    return kv;
  }
  return {
    toKv,
    mustKv<K extends Kind>(kind: K, body: unknown, object: string): KVPair<K> {
      if (!isObject(body)) {
        return corruptObject({ server, object, cause: new Error('the answer is not an object') });
      }
      const kv = toKv(kind, body);
      if (!kv) {
        return corruptObject({
          server,
          object,
          cause: new Error('the answer is not the object written'),
        });
      }
      return kv as KVPair<K>;
    },
  };
}
