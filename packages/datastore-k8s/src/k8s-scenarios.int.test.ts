import { describeIpamScenarios } from '@netledger/testkit';
import { afterAll, describe, vi } from 'vitest';
import { createSharedKube, createWipedKubeTarget } from '../test/shared-kube.js';
import { CALICO_API_GROUPS } from './calico-api-group.js';

// The ipam-core scenario suite on the real kube-apiserver, once per Calico API group: a server with
// only that group's CRDs (started for the group's block, stopped after it), where the store finds
// the group itself. Each scenario starts from a wiped API server (no Calico objects, no Nodes).
// Every scenario goes through the real API server, several requests per block claim: scenario 2
// claims 128 blocks, tens of seconds on a busy machine. The limit only guards against a hang.
vi.setConfig({ testTimeout: 180_000 });

for (const group of CALICO_API_GROUPS) {
  describe(group, () => {
    const kube = createSharedKube({ group });
    afterAll(() => kube.stop());
    describeIpamScenarios(
      `kubernetes (kube-apiserver, Calico's ${group} CRDs)`,
      createWipedKubeTarget(kube),
    );
  });
}
