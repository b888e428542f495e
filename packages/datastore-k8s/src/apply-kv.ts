// `apply` on the Kubernetes datastore: read, then create or update, again on a lost race.
import type { Kind, KVPair, NewKVPair } from '@netledger/ipam-core';
import { isIpamError } from '@netledger/ipam-core';
import { ipamHostNotSupported } from './ipam-host-refusals.js';
import { getKv } from './k8s-reads.js';
import { createKv, updateKv } from './k8s-writes.js';
import type { KubeObjects } from './kube-objects.js';

/** Attempts of an `apply` (read, then create or update) before a conflict is surfaced. */
const APPLY_ATTEMPTS = 10;

/**
 * Writes `kv` whatever is stored: an update of the current object, else a create. A race lost to
 * another writer (conflict, created or deleted meanwhile) is read again, up to 10 attempts.
 */
export async function applyKv<K extends Kind>(
  objects: KubeObjects,
  kv: NewKVPair<K>,
): Promise<KVPair<K>> {
  const key = kv.key;
  if (key.kind === 'IPAMHost') return ipamHostNotSupported(key, 'apply');
  for (let i = 0; ; i++) {
    try {
      const current = await getKv(objects, key).catch((e: unknown) => {
        if (isIpamError(e, 'DoesNotExist')) return undefined;
        throw e;
      });
      return current
        ? await updateKv(objects, { ...kv, revision: current.revision })
        : await createKv(objects, kv);
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
