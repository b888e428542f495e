import type { K8sDatastoreConfig } from './datastore-config.js';
import { DatastoreConfigError } from './datastore-config-error.js';
import type { StoreOpener } from './store-opener.js';

/**
 * The Kubernetes store. This is where `@netledger/datastore-k8s` plugs in: `load` imports it
 * lazily and `open` calls its `createK8sDatastore` with `config.kubeconfig` (the in-cluster
 * configuration when there is none). Until that package exists every kubernetes config is
 * refused here, the one place that says so.
 */
export const k8sOpener: StoreOpener<K8sDatastoreConfig> = {
  load: async () => undefined,
  open: async () => {
    throw new DatastoreConfigError(
      'NotAvailable',
      'the kubernetes datastore is not available yet in netledger: use the file or etcdv3 datastore',
    );
  },
};
