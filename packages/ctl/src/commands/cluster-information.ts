import { isIpamError } from '@netledger/ipam-core';
import type { ClusterInformation, Datastore, KVPair } from '@netledger/ipam-core';

/** The key of the one ClusterInformation Calico keeps. */
export const CLUSTER_INFORMATION_KEY = { kind: 'ClusterInformation', name: 'default' } as const;

/** The `default` ClusterInformation, or undefined when the datastore has none. */
export async function readClusterInformation(
  datastore: Datastore,
): Promise<KVPair<'ClusterInformation'> | undefined> {
  try {
    return await datastore.get(CLUSTER_INFORMATION_KEY);
  } catch (e) {
    if (isIpamError(e, 'DoesNotExist')) return undefined;
    throw e;
  }
}

/** True when `calicoctl datastore migrate lock` (or ours) has locked the datastore. */
export function isLocked(ci: ClusterInformation | undefined): boolean {
  return ci?.spec.datastoreReady === false;
}
