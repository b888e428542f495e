// Reading and writing single API objects and collections of one Calico API group for the datastore:
// requests with their errors mapped (naming the API server and the object), Calico objects decoded
// into KVPairs, the paths of each kind, affinities' two possible names, the metadata an update of
// an IPAM object keeps, the hard delete that ends a soft delete, and paginated lists.
import type { DatastoreKey, KVPair, Kind } from '@netledger/ipam-core';
import { describeKey } from '@netledger/ipam-core/adapter';
import type { CrdGroup } from './calico-api-group.js';
import { alternateAffinityName } from './calico-names.js';
import type { CrdKind } from './crd-kinds.js';
import { CRD_KINDS, crdPath, describeObject, isCrdKind, objectName } from './crd-kinds.js';
import type { JsonObject } from './ipam-crd-codec.js';
import { keptMetadata } from './kept-metadata.js';
import { createKeptMetadataCache } from './kept-metadata-cache.js';
import type { KubeCalls } from './kube-calls.js';
import type { KubeResponse } from './kube-http.js';
import { corruptObject, decodeKubeObject, isObject, meta, metaString } from './kube-object-kv.js';

const NODES = '/api/v1/nodes';
const PAGE = 500;

/** Whether two keys name the same object (the kind's identifying fields are equal). */
export function sameKey(a: DatastoreKey, b: DatastoreKey): boolean {
  return describeKey(a) === describeKey(b);
}

export { isObject, meta, metaString };

/** A list's raw objects and the revision it was read at. */
export interface RawList {
  readonly items: JsonObject[];
  readonly revision: string;
}

/** The object-level operations over an HTTP client; see the file comment. */
export type KubeObjects = ReturnType<typeof createKubeObjects>;

/** Creates the object-level operations on `group`'s objects over `calls`. */
export function createKubeObjects(calls: KubeCalls, group: CrdGroup) {
  const { server, call } = calls;
  const fail: KubeCalls['fail'] = calls.fail;
  const kept = createKeptMetadataCache();
  const describe = (key: DatastoreKey): string => describeObject(group, key);
  const resourceOf = (kind: Kind): string =>
    kind === 'Node' ? 'nodes' : group.names[kind as CrdKind].plural;

  function corrupt(object: string, cause: unknown): never {
    return corruptObject({ server, object, cause });
  }
  /** The KVPair of an object; an IPAM object's kept metadata is remembered for its update. */
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

  function mustKv<K extends Kind>(kind: K, body: unknown, object: string): KVPair<K> {
    if (!isObject(body)) corrupt(object, new Error('the answer is not an object'));
    const kv = toKv(kind, body);
    if (!kv) corrupt(object, new Error('the answer is not the object written'));
    return kv as KVPair<K>;
  }

  const pathOf = (key: DatastoreKey): string =>
    key.kind === 'Node'
      ? `${NODES}/${encodeURIComponent(key.name)}`
      : crdPath(group, key.kind as CrdKind, objectName(key));
  const pathAt = (key: DatastoreKey, name: string): string =>
    key.kind === 'Node'
      ? `${NODES}/${encodeURIComponent(name)}`
      : crdPath(group, key.kind as CrdKind, name);
  /** The names a key's object may have: Calico's, and for affinities netledger's alternate. */
  const namesOf = (key: DatastoreKey): [string, string?] =>
    key.kind === 'BlockAffinity'
      ? [objectName(key), alternateAffinityName(key.host, key.affinityType, key.cidr)]
      : [objectName(key)];

  /** Whether the object at `name` is `key`'s (`absent` when there is none). */
  async function holder(key: DatastoreKey, name: string): Promise<'same' | 'other' | 'absent'> {
    const res = await call({ method: 'GET', path: pathAt(key, name) }, describe(key), key);
    if (res.status === 404) return 'absent';
    if (res.status !== 200 || !isObject(res.body))
      fail(res, { method: 'GET', object: describe(key), key });
    const kv = toKv(key.kind, res.body);
    return kv && sameKey(kv.key, key) ? 'same' : 'other';
  }

  /**
   * Runs a write on the key's object under Calico's name, and for an affinity whose Calico name is
   * missing (404) or held by the other type (409 and another key there) under the alternate name.
   */
  async function onName(
    key: DatastoreKey,
    run: (name: string) => Promise<KubeResponse>,
  ): Promise<{ res: KubeResponse; name: string }> {
    const [primary, alternate] = namesOf(key);
    const res = await run(primary);
    if (alternate === undefined || (res.status !== 404 && res.status !== 409)) {
      return { res, name: primary };
    }
    if (res.status === 409 && (await holder(key, primary)) !== 'other')
      return { res, name: primary };
    return { res: await run(alternate), name: alternate };
  }

  const collectionOf = (kind: Kind): string =>
    kind === 'Node' ? NODES : crdPath(group, kind as CrdKind);

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

  async function getRawNamed(key: DatastoreKey): Promise<{ raw: JsonObject; name: string }> {
    const object = describe(key);
    const [primary, alternate] = namesOf(key);
    const res = await call({ method: 'GET', path: pathAt(key, primary) }, object, key);
    if (res.status === 200 && isObject(res.body)) {
      const kv = alternate === undefined ? undefined : toKv(key.kind, res.body);
      if (alternate === undefined || (kv && sameKey(kv.key, key)))
        return { raw: res.body, name: primary };
    } else if (res.status !== 404 || alternate === undefined)
      fail(res, { method: 'GET', object, key });
    const alt = await call({ method: 'GET', path: pathAt(key, alternate) }, object, key);
    if (alt.status !== 200 || !isObject(alt.body)) fail(alt, { method: 'GET', object, key });
    return { raw: alt.body, name: alternate };
  }

  const getRaw = async (key: DatastoreKey): Promise<JsonObject> => (await getRawNamed(key)).raw;

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

  async function listRaw(
    kind: Kind,
    q: { labelSelector?: string; resourceVersion?: string; limit?: number },
  ): Promise<RawList> {
    const object = resourceOf(kind);
    const items: JsonObject[] = [];
    let revision = '';
    let cont: string | undefined;
    do {
      const res = await call(
        {
          method: 'GET',
          path: collectionOf(kind),
          query: {
            // A label-selected list (a host's affinities) is small and sent unpaginated: the API
            // server answers a consistent list from its watch cache only without a limit (with
            // etcd >= 3.5.13 / 3.4.31); a paginated one always reads the whole range from etcd.
            limit:
              q.labelSelector !== undefined && q.limit === undefined
                ? undefined
                : String(q.limit ?? PAGE),
            labelSelector: q.labelSelector,
            continue: cont,
            ...(cont === undefined &&
              q.resourceVersion !== undefined && {
                resourceVersion: q.resourceVersion,
                resourceVersionMatch: 'Exact',
              }),
          },
        },
        object,
      );
      if (res.status !== 200 || !isObject(res.body)) fail(res, { method: 'LIST', object });
      const body = res.body;
      for (const item of Array.isArray(body.items) ? body.items : []) {
        if (isObject(item)) items.push(item);
      }
      const m = meta(body);
      if (revision === '' && typeof m.resourceVersion === 'string') revision = m.resourceVersion;
      cont =
        q.limit === undefined && typeof m.continue === 'string' && m.continue
          ? m.continue
          : undefined;
    } while (cont !== undefined);
    return { items, revision };
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
    onName,
    collectionOf,
    getRawNamed,
    getRaw,
    hardDelete,
    listRaw,
  };
}
