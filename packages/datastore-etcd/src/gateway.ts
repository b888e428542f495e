// The package's gateway-only entry (`@netledger/datastore-etcd/gateway`): what a one-shot process
// such as the CNI plugin needs to open etcd over its HTTP/JSON gateway, and no gRPC code, so a
// bundle of it leaves etcd3, grpc-js and protobufjs out.
export { createEtcdGatewayDatastore } from './create-etcd-gateway-datastore.js';
export type { EtcdGatewayDatastoreOptions } from './create-etcd-gateway-datastore.js';
export type { EtcdDatastore } from './datastore-on-kv.js';
export { parseEtcdEndpoints } from './parse-etcd-endpoints.js';
export type { ParseEtcdEndpointsOptions } from './parse-etcd-endpoints.js';
export type { EtcdTlsOptions } from './load-tls-material.js';
