import { describeDatastoreContract } from '@netledger/testkit';
import { afterAll } from 'vitest';
import { createSharedKube, createWipedKubeTarget } from '../test/shared-kube.js';

// The Datastore contract on the real kube-apiserver with Calico's CRDs: every test starts from a
// wiped API server (all Calico objects and Nodes deleted).
const kube = createSharedKube();
afterAll(() => kube.stop());
describeDatastoreContract('kubernetes (kube-apiserver, Calico CRDs)', {
  listOrder: 'name',
  transact: false,
  ...createWipedKubeTarget(kube),
});
