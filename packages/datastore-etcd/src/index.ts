export { createEtcdDatastore } from './create-etcd-datastore.js';
