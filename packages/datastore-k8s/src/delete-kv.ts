// Deletes on the Kubernetes datastore. Blocks, affinities and handles are deleted as Calico does:
// `deleted: true` by a compare-and-swap write (the linearisation point), then a delete with a UID
// precondition; other objects by one delete with the preconditions given.
import type { DatastoreKey, DeleteOptions } from '@netledger/ipam-core';
import { IpamError } from '@netledger/ipam-core';
import { describeKey } from '@netledger/ipam-core/adapter';
import { CRD_KINDS, isCrdKind } from './crd-kinds.js';
import { noIpamHost } from './ipam-host-refusals.js';
import { getKv } from './k8s-reads.js';
import type { KubeObjects } from './kube-objects.js';
import { isObject, metaString } from './kube-objects.js';

const MERGE_PATCH = 'application/merge-patch+json';

/** Deletes a kind that is not soft-deleted, with the revision and uid as preconditions. */
async function hardDeleteKv(
  objects: KubeObjects,
  key: DatastoreKey,
  options: DeleteOptions,
): Promise<void> {
  const { call, describe, pathOf } = objects;
  const fail: KubeObjects['fail'] = objects.fail;
  const object = describe(key);
  const preconditions = {
    ...(options.revision !== undefined && { resourceVersion: options.revision }),
    ...(options.uid !== undefined && { uid: options.uid }),
  };
  const body = {
    apiVersion: 'v1',
    kind: 'DeleteOptions',
    ...(Object.keys(preconditions).length > 0 && { preconditions }),
  };
  const res = await call({ method: 'DELETE', path: pathOf(key), body }, object, key);
  if (res.status !== 200 && res.status !== 202) fail(res, { method: 'DELETE', object, key });
}

/** The revision to soft-delete at: the one given, else (to check a uid, or an affinity's key) the current one. */
async function softDeleteRevision(
  objects: KubeObjects,
  key: DatastoreKey,
  options: DeleteOptions,
): Promise<string | undefined> {
  if (options.revision !== undefined) return options.revision;
  if (options.uid === undefined && key.kind !== 'BlockAffinity') return undefined;
  // The uid to check, or (affinities, whose names can hold another type's row) the key.
  const current = await getKv(objects, key);
  if (options.uid !== undefined && current.uid !== options.uid) {
    throw new IpamError(
      'UpdateConflict',
      `kube-apiserver at ${objects.server}: ${objects.describe(key)} is not uid ${options.uid}`,
      { identifier: describeKey(key) },
    );
  }
  return current.revision;
}

/**
 * Deletes `key` (at `options.revision` / `options.uid` when given, else `UpdateConflict`):
 * `DoesNotExist` when it is not there. A soft delete that fails after its first step leaves a
 * row that reads, lists and watches already treat as deleted, and the next read completes.
 */
export async function deleteKv(
  objects: KubeObjects,
  key: DatastoreKey,
  options: DeleteOptions = {},
): Promise<void> {
  const { group, call, describe, onName, pathAt, hardDelete } = objects;
  const fail: KubeObjects['fail'] = objects.fail;
  const object = describe(key);
  if (key.kind === 'IPAMHost') return noIpamHost(key);
  if (!(isCrdKind(key.kind) && CRD_KINDS[key.kind].softDelete)) {
    return hardDeleteKv(objects, key, options);
  }
  const revision = await softDeleteRevision(objects, key, options);
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
