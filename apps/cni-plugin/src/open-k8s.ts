// The Kubernetes store for `datastore_type: kubernetes`: build.mjs bundles this entry as a
// separate chunk (datastore-k8s and js-yaml), embedded compressed and compiled only when a config
// asks for it. `@netledger/ipam-core` stays outside the chunk: it gets the main bundle's copy, so
// the store's errors are the IpamError class that ipam-core's CAS retry and callers test for.
export { createK8sDatastore, kubeObjectReaderOf } from '@netledger/datastore-k8s';
