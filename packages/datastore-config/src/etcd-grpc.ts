// The package's gRPC entry (`@netledger/datastore-config/etcd-grpc`): apart from the main entry so
// that a program whose opener is given another loader (the CNI plugin's embedded chunk) never
// bundles the gRPC client.
import type { OpenEtcdGrpc } from './store-opener.js';

/** Loads etcd's gRPC transport from `@netledger/datastore-etcd` (etcd3, grpc-js) on first use. */
export async function loadEtcdGrpc(): Promise<OpenEtcdGrpc> {
  const { createEtcdDatastore } = await import('@netledger/datastore-etcd');
  return (options) => createEtcdDatastore({ ...options, transport: 'grpc' });
}
