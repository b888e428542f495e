import { describeDatastoreContract } from '@netledger/testkit';
import { afterAll, describe } from 'vitest';
import { createSharedKube, createWipedKubeTarget } from '../test/shared-kube.js';
import { CALICO_API_GROUPS } from './calico-api-group.js';

// The Datastore contract on the real kube-apiserver, once per Calico API group: a server with only
// that group's CRDs (started for the group's block, stopped after it), where the store finds the
// group itself. Every test starts from a wiped API server (all Calico objects and Nodes deleted).
for (const group of CALICO_API_GROUPS) {
  describe(group, () => {
    const kube = createSharedKube({ group });
    afterAll(() => kube.stop());
    describeDatastoreContract(`kubernetes (kube-apiserver, Calico's ${group} CRDs)`, {
      listOrder: 'name',
      transact: false,
      ...createWipedKubeTarget(kube),
    });
  });
}
