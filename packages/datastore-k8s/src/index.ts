export { createK8sDatastore } from './create-k8s-datastore.js';
export type { K8sDatastoreOptions } from './k8s-datastore-options.js';
export { K8S_DEFAULTS } from './k8s-datastore-options.js';
export {
  LABEL_AFFINITY_TYPE,
  LABEL_HOSTNAME_HASH,
  LABEL_IP_VERSION,
  affinityName,
  cidrToName,
  handleName,
  hostnameHash,
} from './calico-names.js';
