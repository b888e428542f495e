// Test helper: an in-memory Kubernetes API of pods, namespaces and KubeVirt objects, counting reads.
import type { KubeApi } from './kube-reads.js';
import { kubePaths } from './kube-reads.js';

type Meta = Record<string, unknown>;

/** A fake API: objects by path; `reads` lists every path read. */
export interface FakeKubeApi extends KubeApi {
  readonly reads: string[];
  pod(ns: string, name: string, meta?: Meta): void;
  namespace(name: string, meta?: Meta): void;
  vmi(ns: string, name: string, meta?: Meta): void;
  vm(ns: string, name: string, meta?: Meta): void;
  remove(path: string): void;
}

/** Creates an empty {@link FakeKubeApi}. */
export function createFakeKubeApi(): FakeKubeApi {
  const objects = new Map<string, Record<string, unknown>>();
  const reads: string[] = [];
  const put = (path: string, metadata: Meta) => objects.set(path, { metadata });
  return {
    reads,
    async get(path) {
      reads.push(path);
      return objects.get(path);
    },
    pod: (ns, name, meta = {}) => put(kubePaths.pod(ns, name), { name, namespace: ns, ...meta }),
    namespace: (name, meta = {}) => put(kubePaths.namespace(name), { name, ...meta }),
    vmi: (ns, name, meta = {}) =>
      put(kubePaths.virtualMachineInstance(ns, name), { name, namespace: ns, ...meta }),
    vm: (ns, name, meta = {}) =>
      put(kubePaths.virtualMachine(ns, name), { name, namespace: ns, ...meta }),
    remove: (path) => objects.delete(path),
  };
}
