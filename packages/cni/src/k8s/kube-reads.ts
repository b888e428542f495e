// The Kubernetes objects the plugin reads (pod, namespace, KubeVirt's VMI and VM) through a port
// the app wires to the Kubernetes datastore's own connection, and the metadata it uses of them.
import { CniError, CniErrorCode } from '../cni-error.js';

/** Reads API objects by path (the app's: `@netledger/datastore-k8s`'s `kubeObjectReaderOf`). */
export interface KubeApi {
  /**
   * The object at an API path, or undefined when the server answers 404. Other failures throw
   * (the store's `IpamError`, `Unavailable` for 401, 403 or no answer: code 11).
   */
  get(path: string): Promise<Readonly<Record<string, unknown>> | undefined>;
}

/** An owner reference, as the API serves it. */
export interface OwnerReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly controller: boolean;
}

/** The metadata of an object that the plugin uses. */
export interface KubeMeta {
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly ownerReferences: readonly OwnerReference[];
  /** Set while the object is being deleted. */
  readonly deletionTimestamp?: string;
}

type Obj = Readonly<Record<string, unknown>>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

function stringMap(v: unknown): Record<string, string> {
  if (!isObj(v)) return {};
  return Object.fromEntries(
    Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
}

/** The metadata of an API object (missing fields read as empty). */
export function metaOf(object: Obj): KubeMeta {
  const m = isObj(object['metadata']) ? object['metadata'] : {};
  const owners = Array.isArray(m['ownerReferences']) ? (m['ownerReferences'] as unknown[]) : [];
  const deletion = text(m['deletionTimestamp']);
  return {
    name: text(m['name']),
    namespace: text(m['namespace']),
    uid: text(m['uid']),
    labels: stringMap(m['labels']),
    annotations: stringMap(m['annotations']),
    ownerReferences: owners.filter(isObj).map((o) => ({
      apiVersion: text(o['apiVersion']),
      kind: text(o['kind']),
      name: text(o['name']),
      uid: text(o['uid']),
      controller: o['controller'] === true,
    })),
    ...(deletion !== '' && { deletionTimestamp: deletion }),
  };
}

const seg = (s: string): string => encodeURIComponent(s);

/** API paths of the objects the plugin reads. */
export const kubePaths = {
  pod: (ns: string, name: string) => `/api/v1/namespaces/${seg(ns)}/pods/${seg(name)}`,
  namespace: (name: string) => `/api/v1/namespaces/${seg(name)}`,
  virtualMachineInstance: (ns: string, name: string) =>
    `/apis/kubevirt.io/v1/namespaces/${seg(ns)}/virtualmachineinstances/${seg(name)}`,
  virtualMachine: (ns: string, name: string) =>
    `/apis/kubevirt.io/v1/namespaces/${seg(ns)}/virtualmachines/${seg(name)}`,
} as const;

/** Reads an object's metadata; undefined when it does not exist. */
export async function readMeta(api: KubeApi, path: string): Promise<KubeMeta | undefined> {
  const object = await api.get(path);
  return object === undefined ? undefined : metaOf(object);
}

/**
 * The pod of CNI_ARGS and its namespace. A pod or namespace that does not exist is
 * `UnknownContainer` (3): the runtime asked for a pod the API server does not know, and nothing
 * was allocated.
 */
export async function readPodAndNamespace(
  api: KubeApi,
  ref: { readonly namespace: string; readonly pod: string },
): Promise<{ pod: KubeMeta; namespace: KubeMeta }> {
  const pod = await readMeta(api, kubePaths.pod(ref.namespace, ref.pod));
  if (pod === undefined) {
    throw new CniError(
      CniErrorCode.UnknownContainer,
      `pod ${ref.namespace}/${ref.pod} not found in the Kubernetes API`,
    );
  }
  const namespace = await readMeta(api, kubePaths.namespace(ref.namespace));
  if (namespace === undefined) {
    throw new CniError(
      CniErrorCode.UnknownContainer,
      `failed to get namespace ${ref.namespace}: not found in the Kubernetes API`,
    );
  }
  return { pod, namespace };
}
