export { BIG_SEQUENCE, BlockBuilder, buildPool } from './builders.js';
export { createTempDir, findFreePort } from './fixtures.js';
export { createNetnsPool, onPath, requireNetnsTools } from './netns-fixture.js';
export type { NetnsPool } from './netns-fixture.js';
export {
  startEtcd,
  type EtcdFixture,
  type EtcdFixtureOptions,
  type EtcdFixtureTls,
} from './etcd-fixture.js';
export { createTestCertificates } from './create-test-certificates.js';
export { startKubeApiserver } from './start-kube-apiserver.js';
export type {
  KubeApiserverFixture,
  KubeApiserverFixtureOptions,
  KubeAppName,
  KubectlOptions,
  KubectlResult,
} from './start-kube-apiserver.js';
export type {
  PemFile,
  TestCertificateOptions,
  TestCertificates,
} from './create-test-certificates.js';
export { describeDatastoreContract } from './datastore-contract.js';
export type { ContractTarget } from './datastore-contract.js';
export { describeIpamScenarios } from './ipam-scenarios/describe-ipam-scenarios.js';
export type { IpamScenarioTarget } from './ipam-scenarios/harness.js';
export { startNodeAgent } from './node-agent-fixture.js';
export type {
  AgentStatus,
  NodeAgentFixture,
  NodeAgentFixtureOptions,
} from './node-agent-fixture.js';
export { staticClientBinary } from './static-client.js';
export { describeMirrorContract } from './mirror-contract.js';
export type { MirrorContractTarget, MirrorUnderTest } from './mirror-contract.js';
