import { access } from 'node:fs/promises';
import { createEtcdDatastore } from '@netledger/datastore-etcd';
import { createFileDatastore } from '@netledger/datastore-file';
import type { Datastore } from '@netledger/ipam-core';
import { CtlError } from '../ctl-error.js';
import type { DatastoreConfig } from './datastore-config.js';

/** Options of {@link openDatastore}. */
export interface OpenDatastoreOptions {
  /**
   * Whether a missing file store may be created. Only commands that write new objects pass true;
   * a read (or a release) against a path that holds no store fails and creates nothing.
   */
  readonly mayCreate: boolean;
}

/**
 * Opens the configured datastore. The Kubernetes store does not exist yet: `NotAvailable`. A
 * missing file store fails `InvalidInput` unless `mayCreate`. etcd connects lazily, so an
 * unreachable etcd fails on the first operation (`Unavailable`, after 5 s).
 */
export async function openDatastore(
  config: DatastoreConfig,
  options: OpenDatastoreOptions,
): Promise<Datastore> {
  switch (config.type) {
    case 'file': {
      if (!options.mayCreate) {
        const exists = await access(config.path).then(
          () => true,
          () => false,
        );
        if (!exists) {
          throw new CtlError(
            'InvalidInput',
            `no datastore at ${config.path} (set NETLEDGER_DATASTORE_PATH, or create a pool first)`,
          );
        }
      }
      return createFileDatastore({ path: config.path });
    }
    case 'etcdv3':
      return createEtcdDatastore({
        endpoints: config.endpoints,
        ...(config.tls && { tls: config.tls }),
        ...(config.username !== undefined && { username: config.username }),
        ...(config.password !== undefined && { password: config.password }),
        dialTimeoutMs: 5000,
      });
    case 'kubernetes':
      throw new CtlError(
        'NotAvailable',
        'the kubernetes datastore is not available yet in netledger; use DATASTORE_TYPE=file or etcdv3',
      );
  }
}
