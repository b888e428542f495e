export { createK8sDatastore } from './create-k8s-datastore.js';
export type { CalicoApiGroup } from './calico-api-group.js';
export { CALICO_API_GROUPS } from './calico-api-group.js';
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
export { kubeObjectReaderOf } from './kube-object-reader.js';
export type { KubeObjectReader } from './kube-object-reader.js';
export type { JsonObject } from './ipam-crd-codec.js';
