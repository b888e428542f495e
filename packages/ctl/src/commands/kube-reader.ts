/** Reads Kubernetes API objects by path (datastore-k8s's `KubeObjectReader`): undefined for a 404. */
export interface KubeReader {
  get(path: string): Promise<Readonly<Record<string, unknown>> | undefined>;
  /** Which of Calico's CRD groups the cluster has (`crd.projectcalico.org/v1`, `projectcalico.org/v3`). */
  calicoApiGroup?(): Promise<string>;
}
