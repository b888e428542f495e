// Calico's UpgradeHost for KDD: affinities written before the labels existed are invisible to
// label-selected host lists until their labels are added.
import type { DatastoreKey } from '@netledger/ipam-core';
import { LABEL_AFFINITY_TYPE, affinityLabels } from './calico-names.js';
import { objectName } from './crd-kinds.js';
import type { JsonObject } from './ipam-crd-codec.js';
import type { KubeObjects } from './kube-objects.js';
import { isObject, meta, metaString } from './kube-objects.js';

/** Conflicting writes tolerated per affinity before giving up on it. */
const ATTEMPTS = 10;

/**
 * Adds the hostname-hash, affinity-type and IP-version labels to `host`'s affinities that lack
 * them (found with the selector `!projectcalico.org/affinity-type`), each by a compare-and-swap
 * update retried on conflict; rows deleted meanwhile are skipped.
 */
export async function upgradeAffinityLabels(objects: KubeObjects, host: string): Promise<void> {
  const { call, listRaw, toKv, pathAt } = objects;
  const fail: KubeObjects['fail'] = objects.fail;
  const raw = await listRaw('BlockAffinity', { labelSelector: `!${LABEL_AFFINITY_TYPE}` });
  for (const first of raw.items) {
    let object = first;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
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
      const path = pathAt(key, name);
      const res = await call(
        { method: 'PUT', path, body: { ...object, metadata: { ...meta(object), labels } } },
        `blockaffinities/${name}`,
        key,
      );
      if (res.status === 200 || res.status === 404) break;
      if (res.status !== 409) fail(res, { method: 'PUT', object: `blockaffinities/${name}`, key });
      const again = await call({ method: 'GET', path }, `blockaffinities/${name}`, key);
      if (again.status === 404) break;
      if (again.status !== 200 || !isObject(again.body))
        fail(again, { method: 'GET', object: `blockaffinities/${name}`, key });
      object = again.body;
    }
  }
}
