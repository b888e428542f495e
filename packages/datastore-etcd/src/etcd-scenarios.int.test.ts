import type { Datastore } from '@netledger/ipam-core';
import { describeIpamScenarios, startEtcd } from '@netledger/testkit';
import type { EtcdFixture } from '@netledger/testkit';
import { Etcd3 } from 'etcd3';
import { createEtcdDatastore } from './create-etcd-datastore.js';

// The ipam-core scenario suite on real etcd: each scenario starts from an empty /calico/ tree.
let etcd: EtcdFixture | undefined;
let raw: Etcd3 | undefined;

describeIpamScenarios('etcd', {
  async open(): Promise<Datastore> {
    etcd ??= await startEtcd();
    raw ??= new Etcd3({ hosts: etcd.endpoints });
    await raw.delete().prefix('/calico/');
    return createEtcdDatastore({ endpoints: etcd.endpoints });
  },
  async teardown() {
    raw?.close();
    await etcd?.stop();
  },
});
