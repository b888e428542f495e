import { describeIpamScenarios } from '@netledger/testkit';
import { afterAll } from 'vitest';
import {
  ETCD_TRANSPORTS,
  createSharedEtcd,
  createWipedEtcdTarget,
} from '../test/wiped-etcd-target.js';

// The ipam-core scenario suite on real etcd, once per transport: each scenario starts from an
// empty /calico/ tree of one etcd shared by both runs.
const etcd = createSharedEtcd();
afterAll(() => etcd.stop());
for (const transport of ETCD_TRANSPORTS) {
  describeIpamScenarios(`etcd over ${transport}`, createWipedEtcdTarget(etcd, transport));
}
