import { goUtcTimestamp } from '@netledger/ipam-core';
import type { CniArgs } from './cni-args.js';

/**
 * The interface whose handle is calico-ipam's `<network>.<containerID>`: the name every runtime
 * (kubelet's CRI runtimes, podman, nerdctl) gives a container's first interface, and the one all
 * of calico-ipam's allocations were made for.
 */
export const DEFAULT_INTERFACE = 'eth0';

/** The attribute ADD records the container ID in (with {@link IFNAME_ATTR}). */
const CONTAINER_ID_ATTR = 'containerID';
/** The attribute ADD records the interface name in. */
const IFNAME_ATTR = 'ifname';

/** One attachment of a container to a network: the container and its interface. */
export interface AttachmentId {
  readonly containerId: string;
  readonly ifname: string;
}

/**
 * The handle of one attachment's addresses: calico-ipam's `<network>.<CNI_CONTAINERID>` for the
 * default interface (eth0), `<network>.<CNI_CONTAINERID>.<CNI_IFNAME>` for any other, so each
 * interface of a container holds and releases its own addresses.
 */
export function handleIdFor(
  network: string,
  containerId: string,
  ifname: string = DEFAULT_INTERFACE,
): string {
  return ifname === DEFAULT_INTERFACE
    ? `${network}.${containerId}`
    : `${network}.${containerId}.${ifname}`;
}

/**
 * Whether another attachment can map to the same handle. Container IDs and interface names may
 * contain dots, so `<net>.a.eth1` is container `a` on eth1 and container `a.eth1` on eth0; only
 * the default interface of a container ID without a dot has a handle nobody else can have. For
 * the others the owner recorded in the attributes decides.
 */
export function mayShareHandle(a: AttachmentId): boolean {
  return a.ifname !== DEFAULT_INTERFACE || a.containerId.includes('.');
}

/**
 * The pre-3.x workload ID that DEL also releases: `<namespace>.<pod>` for Kubernetes, else the
 * container ID.
 */
export function workloadIdFor(args: CniArgs, containerId: string): string {
  return args.k8s ? `${args.k8s.namespace}.${args.k8s.pod}` : containerId;
}

/**
 * The attributes ADD records on each address: node, timestamp, pod and namespace for k8s (as
 * calico-ipam), and the attachment's container ID and interface (netledger's, so DEL, CHECK and
 * GC can tell attachments apart whose handles coincide; see {@link mayShareHandle}).
 */
export function allocationAttrs(args: {
  nodename: string;
  cniArgs: CniArgs;
  nowMs: number;
  attachment: AttachmentId;
}): Record<string, string> {
  return {
    node: args.nodename,
    ...(args.cniArgs.k8s && { namespace: args.cniArgs.k8s.namespace, pod: args.cniArgs.k8s.pod }),
    timestamp: goUtcTimestamp(args.nowMs),
    [CONTAINER_ID_ATTR]: args.attachment.containerId,
    [IFNAME_ATTR]: args.attachment.ifname,
  };
}

/**
 * The attachment an allocation's attributes name, or `undefined` for one made without them
 * (calico-ipam, or netledger before it recorded them): such an allocation belongs to the
 * container of its `<network>.<containerID>` handle, on whatever interface it was made.
 */
export function ownerOf(attrs: Readonly<Record<string, string>>): AttachmentId | undefined {
  const containerId = attrs[CONTAINER_ID_ATTR];
  if (containerId === undefined) return undefined;
  return { containerId, ifname: attrs[IFNAME_ATTR] ?? DEFAULT_INTERFACE };
}
