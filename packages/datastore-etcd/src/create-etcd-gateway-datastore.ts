import { createDatastoreOnKv } from './datastore-on-kv.js';
import type { EtcdDatastore } from './datastore-on-kv.js';
import { resolveEtcdKvOptions } from './etcd-datastore-options.js';
import type { EtcdDatastoreOptions } from './etcd-datastore-options.js';
import { createGatewayKv } from './gateway-kv.js';

/** Options for {@link createEtcdGatewayDatastore}: those of `createEtcdDatastore` but the transport. */
export type EtcdGatewayDatastoreOptions = Omit<EtcdDatastoreOptions, 'transport'>;

/**
 * `createEtcdDatastore({ ...options, transport: 'http' })`, from a module that imports no gRPC
 * code at all (not even lazily), so a bundle of a program that uses only this leaves etcd3,
 * grpc-js and protobufjs out. Same contract: lazy connection, `InvalidArgument` for bad options,
 * `Unavailable` after `dialTimeoutMs` without an answer, lost write answers resolved from history.
 */
export function createEtcdGatewayDatastore(options: EtcdGatewayDatastoreOptions): EtcdDatastore {
  const kvOptions = resolveEtcdKvOptions(options);
  return createDatastoreOnKv(createGatewayKv(kvOptions), kvOptions);
}
