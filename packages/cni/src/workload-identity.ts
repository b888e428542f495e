import type { CniArgs } from './cni-args.js';

/** calico-ipam's handle for a container's addresses: `<network>.<CNI_CONTAINERID>`. */
export function handleIdFor(network: string, containerId: string): string {
  return `${network}.${containerId}`;
}

/**
 * The pre-3.x workload ID that DEL also releases: `<namespace>.<pod>` for Kubernetes, else the
 * container ID.
 */
export function workloadIdFor(args: CniArgs, containerId: string): string {
  return args.k8s ? `${args.k8s.namespace}.${args.k8s.pod}` : containerId;
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** Go's `time.Now().UTC().String()` (`2006-01-02 15:04:05.999999999 +0000 UTC`, zeros trimmed). */
export function goUtcTimestamp(ms: number): string {
  const d = new Date(ms);
  const frac = pad(d.getUTCMilliseconds(), 3).replace(/0+$/, '');
  return (
    `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}` +
    `${frac === '' ? '' : `.${frac}`} +0000 UTC`
  );
}

/** The attributes ADD records on each address: node, timestamp, and pod and namespace for k8s. */
export function allocationAttrs(args: {
  nodename: string;
  cniArgs: CniArgs;
  nowMs: number;
}): Record<string, string> {
  return {
    node: args.nodename,
    ...(args.cniArgs.k8s && { namespace: args.cniArgs.k8s.namespace, pod: args.cniArgs.k8s.pod }),
    timestamp: goUtcTimestamp(args.nowMs),
  };
}
