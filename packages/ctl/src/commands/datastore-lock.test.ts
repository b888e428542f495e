import { createMemoryDatastore } from '@netledger/ipam-core';
import { describe, expect, it } from 'vitest';
import { CLUSTER_INFORMATION_KEY } from './cluster-information.js';
import { setDatastoreLock } from './datastore-lock.js';

describe('setDatastoreLock', () => {
  it('creates the ClusterInformation with the uid and creationTimestamp Calico gives a created resource, keeping them on unlock', async () => {
    const datastore = createMemoryDatastore();
    const ports = {
      clock: { now: () => Date.parse('2026-12-01T10:11:12.345Z') },
      random: { next: () => 0.5 },
    };
    await setDatastoreLock(datastore, { locked: true, newGuid: () => 'guid-1', ...ports });
    const created = (await datastore.get(CLUSTER_INFORMATION_KEY)).value;
    expect(created).toMatchObject({
      metadata: {
        name: 'default',
        uid: '80808080-8080-4080-8080-808080808080',
        creationTimestamp: '2026-12-01T10:11:12Z',
      },
      spec: { clusterGUID: 'guid-1', datastoreReady: false },
    });
    await setDatastoreLock(datastore, { locked: false });
    expect((await datastore.get(CLUSTER_INFORMATION_KEY)).value).toMatchObject({
      metadata: created.metadata,
      spec: { datastoreReady: true },
    });
  });
});
