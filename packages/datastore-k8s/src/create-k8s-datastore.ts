// The Datastore port on the Kubernetes API (Calico's KDD), on whichever Calico API group the server
// has (crd.projectcalico.org/v1 or projectcalico.org/v3: the option, else Calico's discovery, before
// the first request). Revisions are resourceVersions; every update is a PUT carrying the revision
// read (the server's compare-and-swap, 409 on a stale one) that keeps the IPAM object's metadata;
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
import { IpamError, isIpamError } from '@netledger/ipam-core';
import { describeKey } from '@netledger/ipam-core/adapter';
import type { CalicoApiGroup } from './calico-api-group.js';
import { crdGroup } from './calico-api-group.js';
import type { CrdKind } from './crd-kinds.js';
import {
  CRD_KINDS,
  encodeCrd,
  isCrdKind,
  isSoftDeleted,
  listLabelSelector,
  matchesList,
} from './crd-kinds.js';
import { deferDatastore } from './deferred-datastore.js';
import { discoverCalicoApiGroup } from './discover-calico-api-group.js';
import type { JsonObject } from './ipam-crd-codec.js';
import type { K8sDatastoreOptions } from './k8s-datastore-options.js';
import { resolveK8sOptions } from './k8s-datastore-options.js';
import { createK8sWatch } from './k8s-watch.js';
import { withKeptMetadata } from './kept-metadata.js';
import { assertKubeObjectLimits } from './kube-object-limits.js';
import type { KubeHttp } from './kube-http.js';
import { createKubeCalls } from './kube-calls.js';
import { loadKubeConfig } from './kube-config.js';
import { createKubeHttp } from './kube-http.js';
import { registerObjectReader } from './kube-object-reader.js';
import { nodeAnnotations, setAnnotations } from './node-codec.js';
import { REWRITTEN } from './resource-crd-codec.js';
import { updateNode } from './node-writes.js';
import { upgradeAffinityLabels } from './upgrade-affinity-labels.js';
import type { KubeObjects } from './kube-objects.js';
import { createKubeObjects, isObject, metaString, sameKey } from './kube-objects.js';
import { createTokenBucket } from './token-bucket.js';
import { DEFAULT_RETRY_POLICY } from './request-retry.js';

const MERGE_PATCH = 'application/merge-patch+json';

/** Attempts of an `apply` (read, then create or update) before a conflict is surfaced. */
const APPLY_ATTEMPTS = 10;

/**
 * Opens a Datastore on the Kubernetes API server named by a kubeconfig (or, without one, on the
 * pod's own service account), on the Calico API group of the `calicoApiGroup` option, else the one
 * the server has (Calico's discovery: {@link discoverCalicoApiGroup}). Nothing is sent until the
 * first call, which discovers the group first; a failed discovery fails that call and is tried
 * again by the next. A kubeconfig that cannot be read or a bad option throws `InvalidArgument`
 * here. Errors name the API server and the object.
 */
export function createK8sDatastore(options: K8sDatastoreOptions = {}): Datastore {
  const o = resolveK8sOptions(options);
  const kc = loadKubeConfig(o);
  const http = createKubeHttp(kc, {
    requestTimeoutMs: o.requestTimeoutMs,
    limiter: createTokenBucket({ qps: o.qps, burst: o.burst }),
    retry: { ...DEFAULT_RETRY_POLICY, maxRetries: o.maxRetries, maxWaitMs: o.maxRetryWaitMs },
    ...(o.maxSockets !== undefined && { maxSockets: o.maxSockets }),
  });
  const calls = createKubeCalls(http);
  let opened: Promise<{ group: CalicoApiGroup; datastore: Datastore }> | undefined;
  const open = (): Promise<{ group: CalicoApiGroup; datastore: Datastore }> =>
    (opened ??= (async () => {
      const group = o.calicoApiGroup ?? (await discoverCalicoApiGroup(calls));
      return {
        group,
        datastore: createDatastoreOnGroup(http, createKubeObjects(calls, crdGroup(group))),
      };
    })().catch((e: unknown) => {
      opened = undefined;
      throw e;
    }));
  const datastore = deferDatastore({
    open: async () => (await open()).datastore,
    async close() {
      http.close();
    },
  });
  registerObjectReader(datastore, { calls, calicoApiGroup: async () => (await open()).group });
  return datastore;
}

/** The Datastore over an HTTP client, on the objects of one Calico API group. */
function createDatastoreOnGroup(http: KubeHttp, objects: KubeObjects): Datastore {
  // Annotated, so that the compiler narrows after a call that never returns.
  const fail: KubeObjects['fail'] = objects.fail;
  const {
    group,
    server,
    call,
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
    hardDelete,
    listRaw,
  } = objects;

  const notSupported = (key: DatastoreKey, op: string): never => {
    throw new IpamError(
      'OperationNotSupported',
      `${op} of ${describeKey(key)} is not supported on Kubernetes (Calico's KDD has no IPAM host objects)`,
      { identifier: describeKey(key) },
    );
  };

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
    const object = describe(key);
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

  /** The object to write; refused before anything is sent if over Kubernetes' limits. */
  function crdBody(kv: NewKVPair): JsonObject {
    const body = encodeCrd(group, kv.key as DatastoreKey<CrdKind>, kv.value as never);
    assertKubeObjectLimits(kv.key, body);
    return body;
  }

  async function create<K extends Kind>(kv: NewKVPair<K>): Promise<KVPair<K>> {
    const key = kv.key as DatastoreKey;
    if (key.kind === 'IPAMHost') return notSupported(key, 'create');
    const object = describe(key);
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
    if (key.kind === 'Node') assertKubeObjectLimits(key, body);
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
      fail(res, { method: 'POST', object, key });
    }
  }

  async function update<K extends Kind>(kv: KVPair<K>): Promise<KVPair<K>> {
    const key = kv.key as DatastoreKey;
    if (key.kind === 'IPAMHost') return notSupported(key, 'update');
    if (!kv.revision) {
      throw new IpamError('InvalidArgument', `update of ${describeKey(key)} without a revision`, {
        identifier: describeKey(key),
      });
    }
    if (key.kind === 'Node') return updateNode(objects, kv);
    const object = describe(key);
    const crdKey = key as DatastoreKey<CrdKind>;
    // Refused before anything is sent (even the read of what to keep) if over Kubernetes' limits.
    const encoded = crdBody(kv);
    const keeps = CRD_KINDS[crdKey.kind].ipam;
    let body = encoded;
    const { res, name } = await onName(key, async (n) => {
      // An IPAM value has no metadata: the stored object's is kept (Calico's annotation, labels
      // and finalizers others put there); a resource's value carries its own.
      const base = keeps
        ? withKeptMetadata(encoded, await keptMetadataAt(key, n, kv.revision))
        : encoded;
      body = {
        ...base,
        metadata: { ...(base.metadata as JsonObject), name: n, resourceVersion: kv.revision },
      };
      if (keeps) assertKubeObjectLimits(key, body); // the kept annotations count too
      return call({ method: 'PUT', path: pathAt(key, n), body }, object, key);
    });
    if (res.status !== 200) fail(res, { method: 'PUT', object, key });
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
    if (again.status !== 200) fail(again, { method: 'PUT', object, key });
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
    const object = describe(key);
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
      if (res.status !== 200 && res.status !== 202) fail(res, { method: 'DELETE', object, key });
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
            spec: { deleted: key.kind === 'BlockAffinity' ? group.affinityDeleted(true) : true },
          },
        },
        object,
        key,
      ),
    );
    if (res.status !== 200 || !isObject(res.body)) fail(res, { method: 'PATCH', object, key });
    // Step 2: the row goes, if it is still the one soft-deleted (Calico's UID precondition).
    await hardDelete(key, metaString(res.body, 'uid'), name);
  }

  function watch(options: ListOptions, watchOptions?: WatchOptions): WatchStream {
    const kind = options.kind;
    if (kind === 'IPAMHost') {
      return createK8sWatch(
        {
          http,
          path: collectionOf('IPAMConfig'),
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
        resource: resourceOf(kind),
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

  const datastore: Datastore = {
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
    upgradeAffinityLabels: (host) => upgradeAffinityLabels(objects, host),
    async close() {
      http.close();
    },
  };
  return datastore;
}
