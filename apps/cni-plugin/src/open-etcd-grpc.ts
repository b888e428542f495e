// The gRPC etcd adapter for `etcd_transport: "grpc"`: build.mjs bundles this entry as a separate
// chunk (etcd3, grpc-js, protobufjs), embedded compressed and compiled only when a config asks for
// it. `@netledger/ipam-core` stays outside the chunk: it gets the main bundle's copy, so errors the
// adapter throws are the same IpamError class that ipam-core's CAS retry and callers test for.
import { createEtcdDatastore } from '@netledger/datastore-etcd';
import type { EtcdGatewayDatastoreOptions } from '@netledger/datastore-etcd';
import type { Datastore } from '@netledger/ipam-core';

/** Opens etcd over gRPC with the options the gateway would get. */
export function openGrpcEtcdDatastore(options: EtcdGatewayDatastoreOptions): Datastore {
  return createEtcdDatastore({ ...options, transport: 'grpc' });
}
