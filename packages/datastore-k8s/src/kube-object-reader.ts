// Plain reads of other API objects (pods, namespaces, KubeVirt's VMs) over a Kubernetes
// datastore's own connection: the CNI plugin reads a pod's annotations and its namespace's labels
// on the same keep-alive connection, under the same client limit, as its IPAM requests.
import type { Datastore } from '@netledger/ipam-core';
import type { CalicoApiGroup } from './calico-api-group.js';
import type { JsonObject } from './ipam-crd-codec.js';
import type { KubeCalls } from './kube-calls.js';
import { isObject } from './kube-object-kv.js';

/** Reads API objects by path over a Kubernetes datastore's connection. */
export interface KubeObjectReader {
  /**
   * GETs an API path (`/api/v1/namespaces/default/pods/web-0`): the object, or undefined when
   * the server answers 404 (no such object, or the resource type is not served). Any other
   * failure throws the datastore's `IpamError` naming the server and the path (`Unavailable` for
   * 401, 403 or no answer).
   */
  get(path: string): Promise<JsonObject | undefined>;
  /**
   * The Calico API group the datastore uses (its option, else discovered on first use, as its
   * first call does): where other Calico objects of the cluster are, e.g. the
   * KubeControllersConfiguration. Throws the discovery's error when the server cannot say.
   */
  calicoApiGroup(): Promise<CalicoApiGroup>;
}

const readers = new WeakMap<Datastore, KubeObjectReader>();

/** Makes the reader of a datastore's connection and remembers it for {@link kubeObjectReaderOf}. */
export function registerObjectReader(
  datastore: Datastore,
  o: { readonly calls: KubeCalls; calicoApiGroup(): Promise<CalicoApiGroup> },
): void {
  const { calls } = o;
  readers.set(datastore, {
    async get(path) {
      const object = path.replace(/^\/api\/v1\/|^\/apis\//, '');
      const res = await calls.call({ method: 'GET', path }, object);
      if (res.status === 404) return undefined;
      if (res.status !== 200 || !isObject(res.body)) calls.fail(res, { method: 'GET', object });
      return res.body as JsonObject;
    },
    calicoApiGroup: () => o.calicoApiGroup(),
  });
}

/**
 * The object reader sharing `datastore`'s connection, when `datastore` was made by
 * `createK8sDatastore` (undefined for any other store).
 */
export function kubeObjectReaderOf(datastore: Datastore): KubeObjectReader | undefined {
  return readers.get(datastore);
}
