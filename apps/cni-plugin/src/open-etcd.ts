// The etcd adapter entry: build.mjs bundles it as a separate chunk, loaded only for etcdv3.
// `@netledger/ipam-core` stays outside the chunk: it gets the main bundle's copy, so errors the
// adapter throws are the same IpamError class that ipam-core's CAS retry and callers test for.
import type { DatastoreConf } from '@netledger/cni';
import { createEtcdDatastore, parseEtcdEndpoints } from '@netledger/datastore-etcd';
import type { Datastore } from '@netledger/ipam-core';

/** Opens etcd; throws `InvalidArgument` for a bad endpoint or an unreadable TLS file. */
export function openEtcdDatastore(conf: Extract<DatastoreConf, { type: 'etcdv3' }>): Datastore {
  return createEtcdDatastore({
    endpoints: parseEtcdEndpoints(conf.endpoints),
    ...(conf.tls && { tls: conf.tls }),
    ...(conf.username !== undefined && { username: conf.username }),
    ...(conf.password !== undefined && { password: conf.password }),
  });
}
