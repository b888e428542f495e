// etcdv3 for a one-shot process: etcd's HTTP/JSON gateway over node:http, which costs a few ms
// to load and connect where the gRPC client costs over 100 ms of CPU (docs/cni.md, "Start-up cost").
// `etcd_transport: "grpc"` loads the gRPC adapter from its embedded chunk instead.
import type { DatastoreConf } from '@netledger/cni';
import { createEtcdGatewayDatastore, parseEtcdEndpoints } from '@netledger/datastore-etcd/gateway';
import type { Datastore } from '@netledger/ipam-core';
import { loadGrpcChunk } from './load-grpc-chunk.js';

/** Opens etcd; throws `InvalidArgument` for a bad endpoint or an unreadable TLS file. */
export async function openEtcdDatastore(
  conf: Extract<DatastoreConf, { type: 'etcdv3' }>,
): Promise<Datastore> {
  const options = {
    endpoints: parseEtcdEndpoints(conf.endpoints),
    ...(conf.tls && { tls: conf.tls }),
    ...(conf.username !== undefined && { username: conf.username }),
    ...(conf.password !== undefined && { password: conf.password }),
  };
  if (conf.transport !== 'grpc') return createEtcdGatewayDatastore(options);
  return (await loadGrpcChunk()).openGrpcEtcdDatastore(options);
}
