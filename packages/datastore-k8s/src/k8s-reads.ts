// Reads on the Kubernetes datastore: a get that completes the delete of a soft-deleted row it
// finds, lists that leave soft-deleted rows out, and several lists read as one snapshot.
import type { DatastoreKey, Kind, KVPair, ListOptions, ListResult } from '@netledger/ipam-core';
import { IpamError } from '@netledger/ipam-core';
import { describeKey } from '@netledger/ipam-core/adapter';
import {
  CRD_KINDS,
  isCrdKind,
  isSoftDeleted,
  listLabelSelector,
  matchesList,
} from './crd-kinds.js';
import { noIpamHost } from './ipam-host-refusals.js';
import type { KubeObjects } from './kube-objects.js';
import { sameKey } from './kube-objects.js';

/**
 * The object at `key`: `DoesNotExist` when there is none, when its name holds another key's
 * object, or when it was soft-deleted (whose delete this read then completes).
 */
export async function getKv<K extends Kind>(
  objects: KubeObjects,
  key: DatastoreKey<K>,
): Promise<KVPair<K>> {
  if (key.kind === 'IPAMHost') return noIpamHost(key);
  const { server, describe, getRawNamed, mustKv, hardDelete } = objects;
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

/** The objects `options` selects, soft-deleted ones left out; at exactly `atRevision` if given. */
export async function listKvs<K extends Kind>(
  objects: KubeObjects,
  options: ListOptions<K>,
  atRevision?: string,
): Promise<ListResult<K>> {
  const { listRaw, toKv } = objects;
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

/** Several lists as one snapshot: each at the revision of the first one read. */
export async function listManyKvs(
  objects: KubeObjects,
  many: readonly ListOptions[],
): Promise<ListResult[]> {
  if (many.length === 0) return [];
  // One list is read as usual (a consistent read the API server answers from its watch
  // cache); the others at exactly its revision, so all are one snapshot, as etcd's read-only
  // transaction gives. An exact-revision read is served from etcd, where a label selector
  // does not narrow the range read: the label-selected list (a host's affinities) goes first.
  const first = Math.max(
    0,
    many.findIndex((opt) => listLabelSelector(opt) !== undefined),
  );
  const head = await listKvs(objects, many[first]!);
  const results = await Promise.all(
    many.map((opt, i) =>
      i === first ? Promise.resolve(head) : listKvs(objects, opt, head.revision),
    ),
  );
  return results.map((r) => ({ ...r, revision: head.revision }));
}
