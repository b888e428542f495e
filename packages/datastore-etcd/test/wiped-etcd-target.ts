import type { Datastore } from '@netledger/ipam-core';
import { startEtcd } from '@netledger/testkit';
import type { EtcdFixture } from '@netledger/testkit';
import { Etcd3 } from 'etcd3';
import { createEtcdDatastore } from '../src/create-etcd-datastore.js';
import type { EtcdTransport } from '../src/etcd-datastore-options.js';

/** Both transports, for suites that run once per transport. */
export const ETCD_TRANSPORTS: readonly EtcdTransport[] = ['grpc', 'http'];

/** One etcd for a whole test file, started on first use; the file stops it in its `afterAll`. */
export interface SharedEtcd {
  get(): Promise<EtcdFixture>;
  /** Deletes everything under `/calico/`. */
  wipe(): Promise<void>;
  stop(): Promise<void>;
}

export function createSharedEtcd(): SharedEtcd {
  let etcd: Promise<EtcdFixture> | undefined;
  let raw: Etcd3 | undefined;
  const get = (): Promise<EtcdFixture> => (etcd ??= startEtcd());
  return {
    get,
    async wipe() {
      raw ??= new Etcd3({ hosts: (await get()).endpoints });
      await raw.delete().prefix('/calico/');
    },
    async stop() {
      raw?.close();
      await (await etcd)?.stop();
    },
  };
}

/**
 * A suite target over a shared etcd: every `open()` wipes the Calico tree and returns a new
 * Datastore on `transport`, so each test starts from an empty store. Its teardown leaves the etcd
 * running for the next suite of the file.
 */
export function createWipedEtcdTarget(
  etcd: SharedEtcd,
  transport: EtcdTransport,
): { open(): Promise<Datastore> } {
  return {
    async open() {
      await etcd.wipe();
      return createEtcdDatastore({ endpoints: (await etcd.get()).endpoints, transport });
    },
  };
}
