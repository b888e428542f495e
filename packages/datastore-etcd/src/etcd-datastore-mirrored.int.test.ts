// The read mirror (ipam-core's createMirroredDatastore, what the node agent puts in front of its
// store) over etcd, on both transports: the Datastore contract through it, and its watch following
// another client's writes with no re-sync.
import type { Datastore } from '@netledger/ipam-core';
import { describeMirrorContract } from '@netledger/testkit';
import { afterAll } from 'vitest';
import {
  ETCD_TRANSPORTS,
  createSharedEtcd,
  createWipedEtcdTarget,
} from '../test/wiped-etcd-target.js';
import { createEtcdDatastore } from './create-etcd-datastore.js';

const etcd = createSharedEtcd();
afterAll(() => etcd.stop());
for (const transport of ETCD_TRANSPORTS) {
  const wiped = createWipedEtcdTarget(etcd, transport);
  describeMirrorContract(`etcd over ${transport}`, {
    listOrder: 'path',
    open: (): Promise<Datastore> => wiped.open(),
    reopen: async () => createEtcdDatastore({ endpoints: (await etcd.get()).endpoints, transport }),
  });
}
