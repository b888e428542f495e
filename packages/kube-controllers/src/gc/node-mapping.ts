import type { Node } from '@netledger/ipam-core';

/** A Calico node that is not a Kubernetes node (no `k8s` orchRef): the GC leaves it alone. */
export const NOT_KUBERNETES = Symbol('not-kubernetes');

/** What a Calico node is on the Kubernetes side: a node name, or {@link NOT_KUBERNETES}. */
export type KubernetesNodeRef = string | typeof NOT_KUBERNETES;

/**
 * The Kubernetes node a Calico Node resource stands for (Calico's `getK8sNodeName`): the
 * `nodeName` of its `k8s` orchestrator reference; {@link NOT_KUBERNETES} when it has references
 * but none to Kubernetes (another orchestrator's node). Unlike Calico, a node with no reference at
 * all maps to the Kubernetes node of its own name: netledger registers nodes under their
 * Kubernetes names (`netledgerctl node create`), and without this the GC would never judge them.
 */
export function kubernetesNodeOf(node: Node): KubernetesNodeRef {
  const refs = node.spec?.orchRefs;
  if (!Array.isArray(refs) || refs.length === 0) return node.metadata.name;
  for (const ref of refs as unknown[]) {
    if (ref === null || typeof ref !== 'object') continue;
    const { orchestrator, nodeName } = ref as { orchestrator?: unknown; nodeName?: unknown };
    if (orchestrator === 'k8s' && typeof nodeName === 'string' && nodeName !== '') return nodeName;
  }
  return NOT_KUBERNETES;
}

/**
 * The Kubernetes node for a Calico node name, given the Calico Node resources known: the mapped
 * name when the resource exists, the same name when it does not. Calico treats a missing Calico
 * Node as a deleted one and releases its addresses at once; netledger's CNI plugin allocates with
 * the Kubernetes node name and nothing obliges a store to hold Node resources, so a missing
 * resource proves nothing, and the Kubernetes node's own existence decides.
 */
export function resolveKubernetesNode(
  calicoNode: string,
  calicoNodes: ReadonlyMap<string, KubernetesNodeRef>,
): KubernetesNodeRef {
  return calicoNodes.get(calicoNode) ?? calicoNode;
}
