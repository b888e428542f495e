/** The stores netledger can open, by Calico's `datastore_type` names. */
export type DatastoreType = 'file' | 'etcdv3' | 'kubernetes';

/** How etcd is reached: its HTTP/JSON gateway (node:http) or gRPC (etcd3). */
export type EtcdTransport = 'http' | 'grpc';

/** The embedded single-host store. */
export interface FileDatastoreConfig {
  readonly type: 'file';
  /** Absent: the opener's default location (`defaultDatastorePath` for its user). */
  readonly path?: string;
}

/** etcd v3, in Calico's key layout. */
export interface EtcdDatastoreConfig {
  readonly type: 'etcdv3';
  /**
   * Calico's `etcd_endpoints` text (comma-separated URLs), as given: the etcd package parses it
   * when the store is opened (a bad endpoint is then an `InvalidValue`).
   */
  readonly endpoints: string;
  /** TLS files (`etcd_ca_cert_file`, `etcd_cert_file`, `etcd_key_file`). */
  readonly tls?: { readonly ca?: string; readonly cert?: string; readonly key?: string };
  readonly username?: string;
  readonly password?: string;
  /** Absent: the opener's default transport (the CNI plugin's is `http`, netledgerctl's `grpc`). */
  readonly transport?: EtcdTransport;
}

/** Calico's CRDs on a Kubernetes API server. */
export interface K8sDatastoreConfig {
  readonly type: 'kubernetes';
  /** The kubeconfig file; absent: the in-cluster configuration (the pod's service account). */
  readonly kubeconfig?: string;
  /**
   * Calico's API group (`CALICO_API_GROUP`, `spec.calicoAPIGroup`): `crd.projectcalico.org/v1`
   * or `projectcalico.org/v3`; absent: the store finds which the server has, as Calico does.
   */
  readonly calicoApiGroup?: string;
}

/** One store's configuration, read from the environment, a CNI netconf or a calicoctl config. */
export type DatastoreConfig = FileDatastoreConfig | EtcdDatastoreConfig | K8sDatastoreConfig;
