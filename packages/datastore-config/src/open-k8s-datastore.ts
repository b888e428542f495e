import type { K8sDatastoreConfig } from './datastore-config.js';
import type { StoreOpener } from './store-opener.js';

/**
 * The Kubernetes store (`@netledger/datastore-k8s`, imported on first use): the config's
 * kubeconfig, else the in-cluster configuration (the pod's service account), with the app's
 * client limits and timeout.
 */
export const k8sOpener: StoreOpener<K8sDatastoreConfig> = {
  load: () => import('@netledger/datastore-k8s'),
  async open(config, options) {
    const { createK8sDatastore } = await import('@netledger/datastore-k8s');
    return createK8sDatastore({
      ...options.kubernetes,
      ...(config.kubeconfig !== undefined && { kubeconfig: config.kubeconfig }),
    });
  },
};
