// What `import('@netledger/datastore-k8s')` resolves to inside netledger-ipam's bundle (build.mjs):
// the Kubernetes client is not carried by the plugin yet, so a `kubernetes` config is refused
// with the same code as before the store existed, instead of bundling @kubernetes/client-node
// into every ADD's start-up snapshot.
import { DatastoreConfigError } from '@netledger/datastore-config';

/** Refuses: this build of netledger-ipam carries no Kubernetes datastore. */
export function createK8sDatastore(): never {
  throw new DatastoreConfigError(
    'NotAvailable',
    'the kubernetes datastore is not available yet in netledger-ipam: use the file or etcdv3 datastore',
  );
}
