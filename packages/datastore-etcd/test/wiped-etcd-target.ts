import type { Datastore } from '@netledger/ipam-core';
import { startEtcd } from '@netledger/testkit';
import type { EtcdFixture } from '@netledger/testkit';
import { Etcd3 } from 'etcd3';
import { createEtcdDatastore } from '../src/create-etcd-datastore.js';

/**
 * A suite target over one real etcd, started on first use: every `open()` wipes the Calico tree
 * and returns a new Datastore, so each test starts from an empty store.
 */
export function createWipedEtcdTarget(): { open(): Promise<Datastore>; teardown(): Promise<void> } {
  let etcd: EtcdFixture | undefined;
  let raw: Etcd3 | undefined;
  return {
    async open() {
      etcd ??= await startEtcd();
      raw ??= new Etcd3({ hosts: etcd.endpoints });
      await raw.delete().prefix('/calico/');
      return createEtcdDatastore({ endpoints: etcd.endpoints });
    },
    async teardown() {
      raw?.close();
      await etcd?.stop();
    },
  };
}
