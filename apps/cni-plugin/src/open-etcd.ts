// etcdv3 for a one-shot process: etcd's HTTP/JSON gateway over node:http, which costs a few ms
// to load and connect where the gRPC client costs over 100 ms of CPU (docs/cni.md, "Start-up cost").
import type { DatastoreConf } from '@netledger/cni';
import { createEtcdGatewayDatastore, parseEtcdEndpoints } from '@netledger/datastore-etcd/gateway';
import type { Datastore } from '@netledger/ipam-core';

/** Opens etcd; throws `InvalidArgument` for a bad endpoint or an unreadable TLS file. */
export function openEtcdDatastore(conf: Extract<DatastoreConf, { type: 'etcdv3' }>): Datastore {
  return createEtcdGatewayDatastore({
    endpoints: parseEtcdEndpoints(conf.endpoints),
    ...(conf.tls && { tls: conf.tls }),
    ...(conf.username !== undefined && { username: conf.username }),
    ...(conf.password !== undefined && { password: conf.password }),
  });
}
