// Creates and updates on the Kubernetes datastore. Every update is a PUT carrying the revision
// read (the server's compare-and-swap, 409 on a stale one) that keeps the IPAM object's metadata.
import type { DatastoreKey, Kind, KVPair, NewKVPair } from '@netledger/ipam-core';
import { IpamError, isIpamError } from '@netledger/ipam-core';
import { describeKey } from '@netledger/ipam-core/adapter';
import type { CrdKind } from './crd-kinds.js';
import { CRD_KINDS, encodeCrd, isCrdKind } from './crd-kinds.js';
import { ipamHostNotSupported } from './ipam-host-refusals.js';
import type { JsonObject } from './ipam-crd-codec.js';
import { withKeptMetadata } from './kept-metadata.js';
import { getKv } from './k8s-reads.js';
import { assertKubeObjectLimits } from './kube-object-limits.js';
import type { KubeObjects } from './kube-objects.js';
import { nodeAnnotations, setAnnotations } from './node-codec.js';
import { updateNode } from './node-writes.js';
import { REWRITTEN } from './resource-crd-codec.js';

/** The object to write; refused before anything is sent if over Kubernetes' limits. */
function crdBody(objects: KubeObjects, kv: NewKVPair): JsonObject {
  const body = encodeCrd(objects.group, kv.key as DatastoreKey<CrdKind>, kv.value as never);
  assertKubeObjectLimits(kv.key, body);
  return body;
}

/** The body of a create: a Node with Calico's annotations, else the CRD object. */
function createBody(objects: KubeObjects, kv: NewKVPair): JsonObject {
  const key = kv.key as DatastoreKey;
  if (key.kind !== 'Node') return crdBody(objects, kv);
  const body = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: key.name,
      annotations: setAnnotations(nodeAnnotations(kv.value as never, {})),
    },
  };
  assertKubeObjectLimits(key, body);
  return body;
}

/** Whether a read of `key` found a leftover soft-deleted row and completed its delete. */
const completedLeftoverDelete = (objects: KubeObjects, key: DatastoreKey): Promise<boolean> =>
  getKv(objects, key).then(
    () => false,
    (e: unknown) => {
      if (isIpamError(e, 'DoesNotExist')) return true;
      throw e;
    },
  );

/**
 * Creates `kv`: `AlreadyExists` when its name is taken (a leftover soft-deleted row holding it is
 * deleted first, once); `OperationNotSupported` for an IPAM host.
 */
export async function createKv<K extends Kind>(
  objects: KubeObjects,
  kv: NewKVPair<K>,
): Promise<KVPair<K>> {
  const key = kv.key as DatastoreKey;
  if (key.kind === 'IPAMHost') return ipamHostNotSupported(key, 'create');
  const { call, describe, onName, collectionOf, mustKv } = objects;
  const fail: KubeObjects['fail'] = objects.fail;
  const object = describe(key);
  const body = createBody(objects, kv);
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
    const soft = isCrdKind(key.kind) && CRD_KINDS[key.kind].softDelete;
    if (
      res.status === 409 &&
      attempt === 0 &&
      soft &&
      (await completedLeftoverDelete(objects, key))
    )
      continue;
    fail(res, { method: 'POST', object, key });
  }
}

/**
 * Updates `kv` if the stored object is still at `kv.revision` (else `UpdateConflict`), keeping an
 * IPAM object's metadata; always gives a new revision, as etcd does, even when nothing changed.
 */
export async function updateKv<K extends Kind>(
  objects: KubeObjects,
  kv: KVPair<K>,
): Promise<KVPair<K>> {
  const key = kv.key as DatastoreKey;
  if (key.kind === 'IPAMHost') return ipamHostNotSupported(key, 'update');
  if (!kv.revision) {
    throw new IpamError('InvalidArgument', `update of ${describeKey(key)} without a revision`, {
      identifier: describeKey(key),
    });
  }
  if (key.kind === 'Node') return updateNode(objects, kv);
  const { call, describe, onName, pathAt, keptMetadataAt, mustKv } = objects;
  const fail: KubeObjects['fail'] = objects.fail;
  const object = describe(key);
  // Refused before anything is sent (even the read of what to keep) if over Kubernetes' limits.
  const encoded = crdBody(objects, kv);
  const keeps = CRD_KINDS[(key as DatastoreKey<CrdKind>).kind].ipam;
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
  const annotations = { ...(meta.annotations as JsonObject | undefined), [REWRITTEN]: kv.revision };
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
