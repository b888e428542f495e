/** The part of `crictl inspectp -o json` the order reads. */
export interface SandboxInspection {
  readonly status?: {
    readonly id?: string;
    readonly linux?: { readonly namespaces?: { readonly options?: { readonly network?: string } } };
  };
}

/**
 * The order `down` removes sandboxes in: those with a pod network first, then those on the
 * host's network (`NODE`). A pod network's removal runs the CNI DEL, which netledger's agent
 * serves from a host-network pod: removed first, it would leave every other DEL failing (code
 * 11) and its veth, route and NAT rules behind. Takes one inspection or the array crictl prints
 * for several; an entry without an id is skipped.
 */
export function sandboxRemovalOrder(inspected: SandboxInspection | readonly SandboxInspection[]): {
  podNetwork: string[];
  hostNetwork: string[];
} {
  const list: readonly SandboxInspection[] = Array.isArray(inspected)
    ? inspected
    : [inspected as SandboxInspection];
  const order = { podNetwork: [] as string[], hostNetwork: [] as string[] };
  for (const s of list) {
    const id = s.status?.id;
    if (!id) continue;
    const host = s.status?.linux?.namespaces?.options?.network === 'NODE';
    (host ? order.hostNetwork : order.podNetwork).push(id);
  }
  return order;
}
