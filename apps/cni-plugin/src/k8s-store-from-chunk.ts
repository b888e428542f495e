// What `@netledger/datastore-k8s` resolves to inside netledger-ipam's bundle (build.mjs): the
// Kubernetes store compiled from its embedded chunk when this module is first imported, which
// only a `kubernetes` config does (datastore-config's opener imports the store lazily, and its
// preload runs before the host lock). A file or etcd invocation never decompresses nor compiles it.
import compressed from 'netledger:k8s-chunk';
import { evaluateChunk } from './evaluate-chunk.js';
import type * as OpenK8s from './open-k8s.js';

const chunk = evaluateChunk<typeof OpenK8s>(compressed);

/** datastore-k8s's `createK8sDatastore`, from the chunk. */
export const createK8sDatastore: typeof OpenK8s.createK8sDatastore = chunk.createK8sDatastore;
/** datastore-k8s's `kubeObjectReaderOf`, from the chunk. */
export const kubeObjectReaderOf: typeof OpenK8s.kubeObjectReaderOf = chunk.kubeObjectReaderOf;
