import { describeIpamScenarios } from '@netledger/testkit';
import { afterAll, vi } from 'vitest';
import { createSharedKube, createWipedKubeTarget } from '../test/shared-kube.js';

// The ipam-core scenario suite on the real kube-apiserver: each scenario starts from a wiped API
// server (no Calico objects, no Nodes).
// Every scenario goes through the real API server, several requests per block claim: scenario 2
// claims 128 blocks, tens of seconds on a busy machine. The limit only guards against a hang.
vi.setConfig({ testTimeout: 180_000 });

const kube = createSharedKube();
afterAll(() => kube.stop());
describeIpamScenarios('kubernetes (kube-apiserver, Calico CRDs)', createWipedKubeTarget(kube));
