import { randomUUID } from 'node:crypto';
import type { Datastore } from '@netledger/ipam-core';
import { withCasRetry } from '@netledger/ipam-core/adapter';
import { CLUSTER_INFORMATION_KEY, readClusterInformation } from './cluster-information.js';

/**
 * `datastore migrate lock|unlock`: sets `ClusterInformation.spec.datastoreReady` to false (lock)
 * or true (unlock) with a compare-and-swap. Locking a datastore that has no ClusterInformation
 * creates one with a fresh cluster GUID (calicoctl expects calico/node to have made it).
 */
export async function setDatastoreLock(
  datastore: Datastore,
  locked: boolean,
  newGuid: () => string = () => randomUUID().replace(/-/g, ''),
): Promise<{ text: string }> {
  await withCasRetry(
    async () => {
      const ci = await readClusterInformation(datastore);
      if (!ci) {
        await datastore.create({
          key: CLUSTER_INFORMATION_KEY,
          value: {
            metadata: { name: 'default' },
            spec: { clusterGUID: newGuid(), clusterType: 'netledger', datastoreReady: !locked },
          },
        });
        return;
      }
      await datastore.update({
        ...ci,
        value: { ...ci.value, spec: { ...ci.value.spec, datastoreReady: !locked } },
      });
    },
    { what: locked ? 'lock the datastore' : 'unlock the datastore' },
  );
  return { text: locked ? 'Datastore locked.\n' : 'Datastore unlocked.\n' };
}
