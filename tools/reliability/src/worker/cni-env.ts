/** What a plugin run is about. */
export interface CniCall {
  readonly command: 'ADD' | 'DEL' | 'GC';
  readonly containerId: string;
  /** Pod namespace, sent as `K8S_POD_NAMESPACE` with the container ID as the pod's name. */
  readonly namespace: string;
}

/**
 * The environment a runtime gives the plugin (CNI_* variables; the Kubernetes pod in CNI_ARGS, so
 * allocations carry `namespace` and `pod` as on a Kubernetes node). GC has no container.
 */
export function cniEnv(call: CniCall): Record<string, string> {
  const base = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    CNI_COMMAND: call.command,
    CNI_PATH: '/nonexistent',
  };
  if (call.command === 'GC') return base;
  return {
    ...base,
    CNI_CONTAINERID: call.containerId,
    CNI_NETNS: `/var/run/netns/${call.containerId}`,
    CNI_IFNAME: 'eth0',
    CNI_ARGS: `IgnoreUnknown=1;K8S_POD_NAMESPACE=${call.namespace};K8S_POD_NAME=${call.containerId};K8S_POD_INFRA_CONTAINER_ID=${call.containerId}`,
  };
}
