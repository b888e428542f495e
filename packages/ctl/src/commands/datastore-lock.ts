import { randomUUID } from 'node:crypto';
import type { Clock, Datastore, Random } from '@netledger/ipam-core';
import { systemClock, systemRandom } from '@netledger/ipam-core';
import { withCasRetry, withCreationMetadata } from '@netledger/ipam-core/adapter';
import { CLUSTER_INFORMATION_KEY, readClusterInformation } from './cluster-information.js';

/** Options of {@link setDatastoreLock}. */
export interface DatastoreLockOptions {
  /** Lock (`datastoreReady: false`) or unlock. */
  readonly locked: boolean;
  /** The cluster GUID of a ClusterInformation this creates (default: a random one). */
  readonly newGuid?: () => string;
  /** The created ClusterInformation's `creationTimestamp` and `uid` come from these. */
  readonly clock?: Clock;
  readonly random?: Random;
}

/**
 * `datastore migrate lock|unlock`: sets `ClusterInformation.spec.datastoreReady` to false (lock)
 * or true (unlock) with a compare-and-swap. Locking a datastore that has no ClusterInformation
 * creates one with a fresh cluster GUID (calicoctl expects calico/node to have made it), with the
 * `uid` and `creationTimestamp` Calico's clientv3 gives a created resource.
 */
export async function setDatastoreLock(
  datastore: Datastore,
  options: DatastoreLockOptions,
): Promise<{ text: string }> {
  const { locked } = options;
  const newGuid = options.newGuid ?? (() => randomUUID().replace(/-/g, ''));
  const ports = { clock: options.clock ?? systemClock, random: options.random ?? systemRandom };
  await withCasRetry(
    async () => {
      const ci = await readClusterInformation(datastore);
      if (!ci) {
        await datastore.create({
          key: CLUSTER_INFORMATION_KEY,
          value: withCreationMetadata(
            {
              metadata: { name: 'default' },
              spec: { clusterGUID: newGuid(), clusterType: 'netledger', datastoreReady: !locked },
            },
            ports,
          ),
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
