/**
 * What the Kubernetes layer (k8s-add.ts) changes in an ADD besides the config's pools and
 * families and CNI_ARGS' `IP`: a KubeVirt VM's handle, attributes and per-handle cap, and the
 * namespace whose labels pools' `namespaceSelector` match.
 */
export interface WorkloadOverrides {
  /** Replaces `<network>.<containerID>` (a persistent VM's `<network>.vmi.<ns>.<vm>`). */
  readonly handleId?: string;
  /** Added to the allocation attributes (`vmi-name`, `vmi-uid`, ...). */
  readonly attrs?: Readonly<Record<string, string>>;
  /** The pod's namespace and its labels, for pools' `namespaceSelector`. */
  readonly namespace?: { readonly name: string; readonly labels: Readonly<Record<string, string>> };
  /** At most this many addresses per family on the handle (1 for a persistent VM, as Calico). */
  readonly maxAllocToHandlePerIpVersion?: number;
}
