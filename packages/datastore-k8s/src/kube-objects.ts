// Reading and writing single API objects and collections of one Calico API group for the datastore:
// requests with their errors mapped (naming the API server and the object), Calico objects decoded
// into KVPairs (kube-object-decoder.ts), the paths of each kind (kube-paths.ts), affinities' two
// possible names (kube-named-objects.ts), the metadata an update of an IPAM object keeps, the hard
// delete that ends a soft delete, and paginated lists (list-raw-objects.ts).
import type { DatastoreKey, Kind } from '@netledger/ipam-core';
import type { CrdGroup } from './calico-api-group.js';
import type { JsonObject } from './ipam-crd-codec.js';
import { keptMetadata } from './kept-metadata.js';
import { createKeptMetadataCache } from './kept-metadata-cache.js';
import type { KubeCalls } from './kube-calls.js';
import type { KubeResponse } from './kube-http.js';
import { createKubeObjectDecoder } from './kube-object-decoder.js';
import { isObject, meta, metaString } from './kube-object-kv.js';
import { getRawNamed, onName, sameKey } from './kube-named-objects.js';
import { createKubePaths } from './kube-paths.js';
import type { RawListQuery } from './list-raw-objects.js';
import { listRawObjects } from './list-raw-objects.js';

export { isObject, meta, metaString, sameKey };

/** The object-level operations over an HTTP client; see the file comment. */
export type KubeObjects = ReturnType<typeof createKubeObjects>;

/** Creates the object-level operations on `group`'s objects over `calls`. */
export function createKubeObjects(calls: KubeCalls, group: CrdGroup) {
  const { server, call } = calls;
  const fail: KubeCalls['fail'] = calls.fail;
  const kept = createKeptMetadataCache();
  const paths = createKubePaths(group);
  const { describe, resourceOf, pathOf, pathAt, collectionOf } = paths;
  const { toKv, mustKv } = createKubeObjectDecoder({ server, resourceOf, kept });
  const ports = { ...calls, ...paths, toKv };

  /**
   * What an update of the IPAM object `key` at `name` keeps (see kept-metadata.ts), as stored at
   * `revision`: remembered from this client's last read of it, else read now (an object read at
   * another revision, or absent, fails the update's compare-and-swap anyway).
   */
  async function keptMetadataAt(
    key: DatastoreKey,
    name: string,
    revision: string,
  ): Promise<JsonObject> {
    const known = kept.at(`${resourceOf(key.kind)}/${name}`, revision);
    if (known) return known;
    const object = describe(key);
    const res = await call({ method: 'GET', path: pathAt(key, name) }, object, key);
    if (res.status === 404) return {};
    if (res.status !== 200 || !isObject(res.body)) fail(res, { method: 'GET', object, key });
    return keptMetadata(res.body);
  }

  /** The hard delete of a soft-deleted object; gone already or replaced is fine. */
  async function hardDelete(
    key: DatastoreKey,
    uid: string | undefined,
    name: string,
  ): Promise<void> {
    const object = describe(key);
    const res = await call(
      {
        method: 'DELETE',
        path: pathAt(key, name),
        body: {
          apiVersion: 'v1',
          kind: 'DeleteOptions',
          ...(uid !== undefined && { preconditions: { uid } }),
        },
      },
      object,
      key,
    );
    if (res.status !== 200 && res.status !== 202 && res.status !== 404 && res.status !== 409) {
      fail(res, { method: 'DELETE', object, key });
    }
  }

  return {
    group,
    server,
    call,
    fail,
    describe,
    resourceOf,
    keptMetadataAt,
    toKv,
    mustKv,
    pathOf,
    pathAt,
    onName: (key: DatastoreKey, run: (name: string) => Promise<KubeResponse>) =>
      onName(ports, key, run),
    collectionOf,
    getRawNamed: (key: DatastoreKey) => getRawNamed(ports, key),
    getRaw: async (key: DatastoreKey): Promise<JsonObject> => (await getRawNamed(ports, key)).raw,
    hardDelete,
    listRaw: (kind: Kind, q: RawListQuery) => listRawObjects(ports, kind, q),
  };
}
