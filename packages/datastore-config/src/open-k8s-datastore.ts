import type { KubeObjectReader } from '@netledger/datastore-k8s';
import type { Datastore } from '@netledger/ipam-core';
import { isIpamError } from '@netledger/ipam-core';
import type { K8sDatastoreConfig } from './datastore-config.js';
import { DatastoreConfigError } from './datastore-config-error.js';
import type { StoreOpener } from './store-opener.js';

/**
 * The Kubernetes store (`@netledger/datastore-k8s`, imported on first use): the config's
 * kubeconfig, else the in-cluster configuration (the pod's service account), with the app's
 * client limits and timeout. What the store refuses as `InvalidArgument` (an unreadable or
 * unusable kubeconfig, a context it lacks) is a config error, `InvalidValue`.
 */
export const k8sOpener: StoreOpener<K8sDatastoreConfig> = {
  load: () => import('@netledger/datastore-k8s'),
  async open(config, options) {
    const { createK8sDatastore } = await import('@netledger/datastore-k8s');
    try {
      return createK8sDatastore({
        ...options.kubernetes,
        ...(config.kubeconfig !== undefined && { kubeconfig: config.kubeconfig }),
        ...(config.calicoApiGroup !== undefined && { calicoApiGroup: config.calicoApiGroup }),
      });
    } catch (e) {
      if (!isIpamError(e, 'InvalidArgument')) throw e;
      throw new DatastoreConfigError('InvalidValue', e.message, { cause: e });
    }
  },
};

/**
 * The Kubernetes API reader sharing `datastore`'s connection when it is a Kubernetes store;
 * undefined for any other store (`@netledger/datastore-k8s` is imported on first use).
 */
export async function k8sObjectReaderOf(
  datastore: Datastore,
): Promise<KubeObjectReader | undefined> {
  const { kubeObjectReaderOf } = await import('@netledger/datastore-k8s');
  return kubeObjectReaderOf(datastore);
}
