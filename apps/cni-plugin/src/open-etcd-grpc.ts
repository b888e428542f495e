// The gRPC etcd adapter for `etcd_transport: "grpc"`: imported only when a config asks for it, so
// the bundle keeps it (etcd3, grpc-js, protobufjs) in a chunk of its own (build.mjs).
import { createEtcdDatastore } from '@netledger/datastore-etcd';
import type { EtcdGatewayDatastoreOptions } from '@netledger/datastore-etcd';
import type { Datastore } from '@netledger/ipam-core';

/** Opens etcd over gRPC with the options the gateway would get. */
export function openGrpcEtcdDatastore(options: EtcdGatewayDatastoreOptions): Datastore {
  return createEtcdDatastore({ ...options, transport: 'grpc' });
}
