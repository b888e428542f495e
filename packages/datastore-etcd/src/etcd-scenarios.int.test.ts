import { describeIpamScenarios } from '@netledger/testkit';
import { createWipedEtcdTarget } from '../test/wiped-etcd-target.js';

// The ipam-core scenario suite on real etcd: each scenario starts from an empty /calico/ tree.
describeIpamScenarios('etcd', createWipedEtcdTarget());
