// Writes of Calico's Node data on Kubernetes: only Calico's annotations change, through the
// status subresource as Calico does, with the revision read as the precondition.
import type { DatastoreKey, KVPair, Kind } from '@netledger/ipam-core';
import { IpamError } from '@netledger/ipam-core';
import { describeKey } from '@netledger/ipam-core/adapter';
import type { JsonObject } from './ipam-crd-codec.js';
import type { KubeObjects } from './kube-objects.js';
import { isObject, meta, metaString } from './kube-objects.js';
import { assertKubeObjectLimits } from './kube-object-limits.js';
import { nodeAnnotations } from './node-codec.js';
import { REWRITTEN } from './resource-crd-codec.js';

const MERGE_PATCH = 'application/merge-patch+json';

/**
 * Updates a Node's Calico data if the Node is still at `kv.revision` (else `UpdateConflict`);
 * Kubernetes labels and every other field of the Node are left as they are. A Node whose
 * annotations would come to more than 256 KiB, or its JSON to more than 1.5 MiB, is refused
 * `InvalidArgument` before the patch is sent.
 */
export async function updateNode<K extends Kind>(
  objects: KubeObjects,
  kv: KVPair<K>,
): Promise<KVPair<K>> {
  const { server, call, getRaw, pathOf, mustKv, describe } = objects;
  const fail: KubeObjects['fail'] = objects.fail;
  const key = kv.key as DatastoreKey<'Node'>;
  const object = describe(key);
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
  const patch = { ...nodeAnnotations(kv.value as never, k8sLabels), [REWRITTEN]: null };
  // The Node as the patch will leave it (a null removes an annotation): refused here, before
  // sending, if over Kubernetes' limits.
  const merged: Record<string, unknown> = { ...(meta(current).annotations as object | undefined) };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete merged[k];
    else merged[k] = v;
  }
  assertKubeObjectLimits(key, {
    ...current,
    metadata: { ...meta(current), annotations: merged as JsonObject },
  });
  const res = await call(
    {
      method: 'PATCH',
      // Calico writes its annotations through the status subresource (nodes/status).
      path: `${pathOf(key)}/status`,
      contentType: MERGE_PATCH,
      body: { metadata: { resourceVersion: kv.revision, annotations: patch } },
    },
    object,
    key,
  );
  if (res.status !== 200) fail(res, { method: 'PATCH', object, key });
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
  if (again.status !== 200) fail(again, { method: 'PATCH', object, key });
  return mustKv(key.kind as K, again.body, object);
}
