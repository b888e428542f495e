import { describeIpamScenarios } from '@netledger/testkit';
import { afterAll } from 'vitest';
import { createSharedKube, createWipedKubeTarget } from '../test/shared-kube.js';

// The ipam-core scenario suite on the real kube-apiserver: each scenario starts from a wiped API
// server (no Calico objects, no Nodes).
const kube = createSharedKube();
afterAll(() => kube.stop());
describeIpamScenarios('kubernetes (kube-apiserver, Calico CRDs)', createWipedKubeTarget(kube));
