// The Datastore port on the Kubernetes API (Calico's KDD). Revisions are resourceVersions; every
// update is a PUT carrying the revision read (the server's compare-and-swap, 409 on a stale one);
// blocks, affinities and handles are deleted as Calico does: `deleted: true` by a CAS write (the
// linearisation point), then a delete with a UID precondition; reads filter soft-deleted rows and
// a get that finds one completes its delete.
import type {
  Datastore,
  DatastoreKey,
  DeleteOptions,
  Kind,
  KVPair,
  ListOptions,
  ListResult,
  NewKVPair,
  WatchOptions,
  WatchStream,
} from '@netledger/ipam-core';
import { IpamError, describeKey, isIpamError } from '@netledger/ipam-core';
import { LABEL_AFFINITY_TYPE, affinityLabels, alternateAffinityName } from './calico-names.js';
import type { CrdKind } from './crd-kinds.js';
import {
  CRD_KINDS,
  crdPath,
  decodeCrd,
  describeObject,
  encodeCrd,
  isCrdKind,
  isSoftDeleted,
  listLabelSelector,
  matchesList,
  objectName,
} from './crd-kinds.js';
import type { JsonObject } from './ipam-crd-codec.js';
import { BadSpec } from './ipam-crd-codec.js';
import type { K8sDatastoreOptions } from './k8s-datastore-options.js';
import { resolveK8sOptions } from './k8s-datastore-options.js';
import { createK8sWatch } from './k8s-watch.js';
import type { KubeHttp, KubeRequest, KubeResponse } from './kube-http.js';
import { createKubeHttp, loadKubeConfig } from './kube-http.js';
import { kubeStatusError, kubeTransportError } from './map-kube-error.js';
import { decodeNode, nodeAnnotations, setAnnotations } from './node-codec.js';
import { REWRITTEN } from './resource-crd-codec.js';
import { createTokenBucket } from './token-bucket.js';

const NODES = '/api/v1/nodes';
const PAGE = 500;
const MERGE_PATCH = 'application/merge-patch+json';

/** Attempts of an `apply` (read, then create or update) and of a label upgrade per affinity. */
const APPLY_ATTEMPTS = 10;

/** Whether two keys name the same object (the kind's identifying fields are equal). */
export function sameKey(a: DatastoreKey, b: DatastoreKey): boolean {
  return describeKey(a) === describeKey(b);
}

const isObject = (v: unknown): v is JsonObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const meta = (o: JsonObject): JsonObject => (isObject(o.metadata) ? o.metadata : {});
const metaString = (o: JsonObject, field: string): string | undefined => {
  const v = meta(o)[field];
  return typeof v === 'string' ? v : undefined;
};

/**
 * Opens a Datastore on the Kubernetes API server named by a kubeconfig (or, without one, on the
 * pod's own service account). Nothing is sent until the first call; a kubeconfig that cannot be
 * read or a bad option throws `InvalidArgument` here. Errors name the API server and the object.
 */
export function createK8sDatastore(options: K8sDatastoreOptions = {}): Datastore {
  const o = resolveK8sOptions(options);
  const kc = loadKubeConfig(o);
  const http = createKubeHttp(kc, {
    requestTimeoutMs: o.requestTimeoutMs,
    limiter: createTokenBucket({ qps: o.qps, burst: o.burst }),
  });
  return createDatastoreOnHttp(http);
}

/** The Datastore over an HTTP client (exported for tests of the request pattern). */
export function createDatastoreOnHttp(http: KubeHttp): Datastore {
  const server = http.server;

  async function call(r: KubeRequest, object: string, key?: DatastoreKey): Promise<KubeResponse> {
    try {
      return await http.request(r);
    } catch (e) {
      if (e instanceof IpamError) throw e;
      throw kubeTransportError(e, {
        server,
        method: r.method,
        object,
        write: r.method !== 'GET',
        ...(key && { identifier: describeKey(key) }),
      });
    }
  }

  function fail(res: KubeResponse, method: string, object: string, key?: DatastoreKey): never {
    throw kubeStatusError(res.status, res.body, {
      server,
      method,
      object,
      ...(key && { identifier: describeKey(key) }),
    });
  }

  function corrupt(object: string, e: unknown): never {
    if (isIpamError(e) && e.code !== 'CorruptValue') throw e;
    const why = e instanceof Error ? e.message : String(e);
    throw new IpamError(
      'CorruptValue',
      `kube-apiserver at ${server}: ${object} is not a valid Calico object: ${why}`,
      { identifier: object, cause: e },
    );
  }

  function toKv(kind: Kind, object: JsonObject): KVPair | undefined {
    const name = metaString(object, 'name') ?? '?';
    const where =
      kind === 'Node' ? `nodes/${name}` : `${CRD_KINDS[kind as CrdKind].plural}/${name}`;
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
      if (e instanceof BadSpec || isIpamError(e, 'CorruptValue')) corrupt(where, e);
      throw e;
    }
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
      : crdPath(key.kind as CrdKind, objectName(key));
  const pathAt = (key: DatastoreKey, name: string): string =>
    key.kind === 'Node'
      ? `${NODES}/${encodeURIComponent(name)}`
      : crdPath(key.kind as CrdKind, name);
  /** The names a key's object may have: Calico's, and for affinities netledger's alternate. */
  const namesOf = (key: DatastoreKey): [string, string?] =>
    key.kind === 'BlockAffinity'
      ? [objectName(key), alternateAffinityName(key.host, key.affinityType, key.cidr)]
      : [objectName(key)];

  /** Whether the object at `name` is `key`'s (`absent` when there is none). */
  async function holder(key: DatastoreKey, name: string): Promise<'same' | 'other' | 'absent'> {
    const res = await call({ method: 'GET', path: pathAt(key, name) }, describeObject(key), key);
    if (res.status === 404) return 'absent';
    if (res.status !== 200 || !isObject(res.body)) fail(res, 'GET', describeObject(key), key);
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

  const collectionOf = (kind: Kind): string => (kind === 'Node' ? NODES : crdPath(kind as CrdKind));

  const notSupported = (key: DatastoreKey, op: string): never => {
    throw new IpamError(
      'OperationNotSupported',
      `${op} of ${describeKey(key)} is not supported on Kubernetes (Calico's KDD has no IPAM host objects)`,
      { identifier: describeKey(key) },
    );
  };

  async function getRawNamed(key: DatastoreKey): Promise<{ raw: JsonObject; name: string }> {
    const object = describeObject(key);
    const [primary, alternate] = namesOf(key);
    const res = await call({ method: 'GET', path: pathAt(key, primary) }, object, key);
    if (res.status === 200 && isObject(res.body)) {
      const kv = alternate === undefined ? undefined : toKv(key.kind, res.body);
      if (alternate === undefined || (kv && sameKey(kv.key, key)))
        return { raw: res.body, name: primary };
    } else if (res.status !== 404 || alternate === undefined) fail(res, 'GET', object, key);
    const alt = await call({ method: 'GET', path: pathAt(key, alternate) }, object, key);
    if (alt.status !== 200 || !isObject(alt.body)) fail(alt, 'GET', object, key);
    return { raw: alt.body, name: alternate };
  }

  const getRaw = async (key: DatastoreKey): Promise<JsonObject> => (await getRawNamed(key)).raw;

  /** The hard delete of a soft-deleted object; gone already or replaced is fine. */
  async function hardDelete(
    key: DatastoreKey,
    uid: string | undefined,
    name: string,
  ): Promise<void> {
    const object = describeObject(key);
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
      fail(res, 'DELETE', object, key);
    }
  }

  async function get<K extends Kind>(key: DatastoreKey<K>): Promise<KVPair<K>> {
    if (key.kind === 'IPAMHost') {
      throw new IpamError(
        'DoesNotExist',
        `${describeKey(key)} does not exist (no IPAM host objects on Kubernetes)`,
        {
          identifier: describeKey(key),
        },
      );
    }
    const object = describeObject(key);
    const { raw, name } = await getRawNamed(key);
    const kv = mustKv(key.kind, raw, object);
    if (!sameKey(kv.key, key)) {
      // Calico's affinity names leave the type out (and hash long hosts): the name can hold
      // another key's object, which is not this one.
      throw new IpamError(
        'DoesNotExist',
        `kube-apiserver at ${server}: ${object} holds ${describeKey(kv.key)}, not ${describeKey(key)}`,
        { identifier: describeKey(key) },
      );
    }
    if (isCrdKind(key.kind) && CRD_KINDS[key.kind].softDelete && isSoftDeleted(kv.value)) {
      await hardDelete(key, kv.uid, name);
      throw new IpamError(
        'DoesNotExist',
        `kube-apiserver at ${server}: ${object} was being deleted (completed the delete)`,
        { identifier: describeKey(key) },
      );
    }
    return kv;
  }

  interface RawList {
    readonly items: JsonObject[];
    readonly revision: string;
  }

  async function listRaw(
    kind: Kind,
    q: { labelSelector?: string; resourceVersion?: string; limit?: number },
  ): Promise<RawList> {
    const object = kind === 'Node' ? 'nodes' : CRD_KINDS[kind as CrdKind].plural;
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
      if (res.status !== 200 || !isObject(res.body)) fail(res, 'LIST', object);
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

  async function list<K extends Kind>(
    options: ListOptions<K>,
    atRevision?: string,
  ): Promise<ListResult<K>> {
    if (options.kind === 'IPAMHost') {
      const { revision } = await listRaw('IPAMConfig', { limit: 1 });
      return { items: [], revision };
    }
    const selector = listLabelSelector(options);
    const raw = await listRaw(options.kind, {
      ...(selector !== undefined && { labelSelector: selector }),
      ...(atRevision !== undefined && { resourceVersion: atRevision }),
    });
    const items: KVPair<K>[] = [];
    for (const object of raw.items) {
      const kv = toKv(options.kind, object);
      if (!kv || !matchesList(kv.key, options)) continue;
      if (isSoftDeleted(kv.value) && isCrdKind(options.kind) && CRD_KINDS[options.kind].softDelete)
        continue;
      items.push(kv as KVPair<K>);
    }
    return { items, revision: raw.revision };
  }

  function crdBody(kv: NewKVPair, revision?: string): JsonObject {
    const body = encodeCrd(kv.key as DatastoreKey<CrdKind>, kv.value as never);
    if (revision !== undefined) (body.metadata as JsonObject).resourceVersion = revision;
    return body;
  }

  async function create<K extends Kind>(kv: NewKVPair<K>): Promise<KVPair<K>> {
    const key = kv.key as DatastoreKey;
    if (key.kind === 'IPAMHost') return notSupported(key, 'create');
    const object = describeObject(key);
    const body =
      key.kind === 'Node'
        ? {
            apiVersion: 'v1',
            kind: 'Node',
            metadata: {
              name: key.name,
              annotations: setAnnotations(nodeAnnotations(kv.value as never, {})),
            },
          }
        : crdBody(kv);
    for (let attempt = 0; ; attempt++) {
      const { res } = await onName(key, (name) =>
        call(
          {
            method: 'POST',
            path: collectionOf(key.kind),
            body: { ...body, metadata: { ...(body.metadata as JsonObject), name } },
          },
          object,
          key,
        ),
      );
      if (res.status === 200 || res.status === 201) return mustKv(key.kind as K, res.body, object);
      // A leftover soft-deleted row holds the name: a read completes its delete, then try again.
      if (
        res.status === 409 &&
        attempt === 0 &&
        isCrdKind(key.kind) &&
        CRD_KINDS[key.kind].softDelete
      ) {
        const done = await get(key).then(
          () => false,
          (e: unknown) => {
            if (isIpamError(e, 'DoesNotExist')) return true;
            throw e;
          },
        );
        if (done) continue;
      }
      fail(res, 'POST', object, key);
    }
  }

  async function updateNode<K extends Kind>(kv: KVPair<K>): Promise<KVPair<K>> {
    const key = kv.key as DatastoreKey<'Node'>;
    const object = describeObject(key);
    // Labels the Kubernetes Node has are inherited, not Calico's: they are not copied into
    // Calico's label annotation (KDD's restoreCalicoLabels), so the current labels are needed.
    const current = await getRaw(key);
    if (metaString(current, 'resourceVersion') !== kv.revision) {
      throw new IpamError(
        'UpdateConflict',
        `kube-apiserver at ${server}: ${object} changed since revision ${kv.revision}`,
        { identifier: describeKey(key) },
      );
    }
    const k8sLabels = (isObject(meta(current).labels) ? meta(current).labels : {}) as Record<
      string,
      string
    >;
    const res = await call(
      {
        method: 'PATCH',
        // Calico writes its annotations through the status subresource (nodes/status).
        path: `${pathOf(key)}/status`,
        contentType: MERGE_PATCH,
        body: {
          metadata: {
            resourceVersion: kv.revision,
            annotations: { ...nodeAnnotations(kv.value as never, k8sLabels), [REWRITTEN]: null },
          },
        },
      },
      object,
      key,
    );
    if (res.status !== 200) fail(res, 'PATCH', object, key);
    const written = mustKv(key.kind as K, res.body, object);
    if (written.revision !== kv.revision) return written;
    // Nothing changed, so nothing was stored: mark it so that the update is still a write.
    const again = await call(
      {
        method: 'PATCH',
        path: `${pathOf(key)}/status`,
        contentType: MERGE_PATCH,
        body: {
          metadata: { resourceVersion: kv.revision, annotations: { [REWRITTEN]: kv.revision } },
        },
      },
      object,
      key,
    );
    if (again.status !== 200) fail(again, 'PATCH', object, key);
    return mustKv(key.kind as K, again.body, object);
  }

  async function update<K extends Kind>(kv: KVPair<K>): Promise<KVPair<K>> {
    const key = kv.key as DatastoreKey;
    if (key.kind === 'IPAMHost') return notSupported(key, 'update');
    if (!kv.revision) {
      throw new IpamError('InvalidArgument', `update of ${describeKey(key)} without a revision`, {
        identifier: describeKey(key),
      });
    }
    if (key.kind === 'Node') return updateNode(kv);
    const object = describeObject(key);
    const base = crdBody(kv, kv.revision);
    let body = base;
    const { res, name } = await onName(key, (n) => {
      body = { ...base, metadata: { ...(base.metadata as JsonObject), name: n } };
      return call({ method: 'PUT', path: pathAt(key, n), body }, object, key);
    });
    if (res.status !== 200) fail(res, 'PUT', object, key);
    const written = mustKv(key.kind as K, res.body, object);
    if (written.revision !== kv.revision) return written;
    // The API server does not store an update that changes nothing (same resourceVersion, no
    // watch event); the port promises a new revision, as etcd gives. Write once more with a mark.
    const meta = body.metadata as JsonObject;
    const annotations = {
      ...(meta.annotations as JsonObject | undefined),
      [REWRITTEN]: kv.revision,
    };
    const again = await call(
      {
        method: 'PUT',
        path: pathAt(key, name),
        body: { ...body, metadata: { ...meta, annotations } },
      },
      object,
      key,
    );
    if (again.status !== 200) fail(again, 'PUT', object, key);
    return mustKv(key.kind as K, again.body, object);
  }

  async function apply<K extends Kind>(kv: NewKVPair<K>): Promise<KVPair<K>> {
    const key = kv.key;
    if (key.kind === 'IPAMHost') return notSupported(key, 'apply');
    for (let i = 0; ; i++) {
      try {
        const current = await get(key).catch((e: unknown) => {
          if (isIpamError(e, 'DoesNotExist')) return undefined;
          throw e;
        });
        return current ? await update({ ...kv, revision: current.revision }) : await create(kv);
      } catch (e) {
        if (
          i + 1 < APPLY_ATTEMPTS &&
          isIpamError(e, 'UpdateConflict', 'AlreadyExists', 'DoesNotExist')
        )
          continue;
        throw e;
      }
    }
  }

  async function del(key: DatastoreKey, options: DeleteOptions = {}): Promise<void> {
    const object = describeObject(key);
    if (key.kind === 'IPAMHost') {
      throw new IpamError(
        'DoesNotExist',
        `${describeKey(key)} does not exist (no IPAM host objects on Kubernetes)`,
        {
          identifier: describeKey(key),
        },
      );
    }
    const soft = isCrdKind(key.kind) && CRD_KINDS[key.kind].softDelete;
    if (!soft) {
      const preconditions = {
        ...(options.revision !== undefined && { resourceVersion: options.revision }),
        ...(options.uid !== undefined && { uid: options.uid }),
      };
      const res = await call(
        {
          method: 'DELETE',
          path: pathOf(key),
          body: {
            apiVersion: 'v1',
            kind: 'DeleteOptions',
            ...(Object.keys(preconditions).length > 0 && { preconditions }),
          },
        },
        object,
        key,
      );
      if (res.status !== 200 && res.status !== 202) fail(res, 'DELETE', object, key);
      return;
    }
    let revision = options.revision;
    if (revision === undefined && (options.uid !== undefined || key.kind === 'BlockAffinity')) {
      // The uid to check, or (affinities, whose names can hold another type's row) the key.
      const current = await get(key);
      if (options.uid !== undefined && current.uid !== options.uid) {
        throw new IpamError(
          'UpdateConflict',
          `kube-apiserver at ${server}: ${object} is not uid ${options.uid}`,
          {
            identifier: describeKey(key),
          },
        );
      }
      revision = current.revision;
    }
    // Step 1, the linearisation point: `deleted: true`, compare-and-swap on the revision when given.
    const { res, name } = await onName(key, (n) =>
      call(
        {
          method: 'PATCH',
          path: pathAt(key, n),
          contentType: MERGE_PATCH,
          body: {
            metadata: revision === undefined ? {} : { resourceVersion: revision },
            spec: { deleted: key.kind === 'BlockAffinity' ? 'true' : true },
          },
        },
        object,
        key,
      ),
    );
    if (res.status !== 200 || !isObject(res.body)) fail(res, 'PATCH', object, key);
    // Step 2: the row goes, if it is still the one soft-deleted (Calico's UID precondition).
    await hardDelete(key, metaString(res.body, 'uid'), name);
  }

  function watch(options: ListOptions, watchOptions?: WatchOptions): WatchStream {
    const kind = options.kind;
    if (kind === 'IPAMHost') {
      return createK8sWatch(
        {
          http,
          path: crdPath('IPAMConfig'),
          resource: 'ipamhosts',
          softDelete: false,
          decode: () => undefined,
          currentRevision: async () => (await listRaw('IPAMConfig', { limit: 1 })).revision,
        },
        watchOptions,
      );
    }
    const selector = listLabelSelector(options);
    return createK8sWatch(
      {
        http,
        path: collectionOf(kind),
        resource: kind === 'Node' ? 'nodes' : CRD_KINDS[kind].plural,
        ...(selector !== undefined && { labelSelector: selector }),
        softDelete: isCrdKind(kind) && CRD_KINDS[kind].softDelete,
        decode: (object) => {
          const kv = toKv(kind, object);
          return kv && matchesList(kv.key, options) ? kv : undefined;
        },
        currentRevision: async () => (await listRaw(kind, { limit: 1 })).revision,
      },
      watchOptions,
    );
  }

  async function upgradeAffinityLabels(host: string): Promise<void> {
    const raw = await listRaw('BlockAffinity', { labelSelector: `!${LABEL_AFFINITY_TYPE}` });
    for (const first of raw.items) {
      let object = first;
      for (let attempt = 0; attempt < APPLY_ATTEMPTS; attempt++) {
        const spec = isObject(object.spec) ? object.spec : {};
        if (spec.node !== host) break;
        const kv = toKv('BlockAffinity', object);
        if (!kv) break;
        const key = kv.key as DatastoreKey<'BlockAffinity'>;
        const name = metaString(object, 'name') ?? objectName(key);
        const labels = {
          ...(meta(object).labels as JsonObject | undefined),
          ...affinityLabels(key.host, key.affinityType, key.cidr),
        };
        const path = crdPath('BlockAffinity', name);
        const res = await call(
          { method: 'PUT', path, body: { ...object, metadata: { ...meta(object), labels } } },
          `blockaffinities/${name}`,
          key,
        );
        if (res.status === 200 || res.status === 404) break;
        if (res.status !== 409) fail(res, 'PUT', `blockaffinities/${name}`, key);
        const again = await call({ method: 'GET', path }, `blockaffinities/${name}`, key);
        if (again.status === 404) break;
        if (again.status !== 200 || !isObject(again.body))
          fail(again, 'GET', `blockaffinities/${name}`, key);
        object = again.body;
      }
    }
  }

  return {
    create,
    update,
    apply,
    delete: del,
    get,
    list: (options) => list(options),
    async listMany(many) {
      if (many.length === 0) return [];
      // One list is read as usual (a consistent read the API server answers from its watch
      // cache); the others at exactly its revision, so all are one snapshot, as etcd's read-only
      // transaction gives. An exact-revision read is served from etcd, where a label selector
      // does not narrow the range read: the label-selected list (a host's affinities) goes first.
      const first = Math.max(
        0,
        many.findIndex((opt) => listLabelSelector(opt) !== undefined),
      );
      const head = await list(many[first]!);
      const results = await Promise.all(
        many.map((opt, i) => (i === first ? Promise.resolve(head) : list(opt, head.revision))),
      );
      return results.map((r) => ({ ...r, revision: head.revision }));
    },
    watch,
    upgradeAffinityLabels,
    async close() {
      http.close();
    },
  };
}
