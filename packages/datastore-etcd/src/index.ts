export { createEtcdDatastore } from './create-etcd-datastore.js';
export type { EtcdDatastore, EtcdDatastoreOptions } from './create-etcd-datastore.js';
export { parseEtcdEndpoints } from './parse-etcd-endpoints.js';
export { loadTlsMaterial } from './load-tls-material.js';
export type { EtcdTlsOptions, TlsMaterial } from './load-tls-material.js';
export { classifyEtcdError, toIpamError } from './map-etcd-error.js';
export type { EtcdErrorClass, EtcdErrorContext } from './map-etcd-error.js';
export { LIST_PAGE_SIZE } from './etcd-reads.js';
