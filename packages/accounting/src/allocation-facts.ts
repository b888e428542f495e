import type { IpAddress } from './ip-address.js';

/** What the GC saw of the pod named by an allocation's `namespace`/`pod` attributes. */
export type PodLookup =
  | { readonly outcome: 'found'; readonly pod: PodFacts }
  | { readonly outcome: 'notFound' }
  /** Any lookup failure other than NotFound; Calico then treats the allocation as valid. */
  | { readonly outcome: 'error' };

/** The few fields of a Kubernetes Pod the leak predicate reads. */
export interface PodFacts {
  /** `spec.nodeName`. */
  readonly nodeName: string;
  /** `status.podIP`. */
  readonly podIp: string;
  /** `status.podIPs[].ip`. */
  readonly podIps: readonly string[];
  /** `status.phase`, e.g. `Running`, `Failed`. */
  readonly phase: string;
  /** `status.reason`, e.g. `Evicted`. */
  readonly reason: string;
  /**
   * `spec.ipNetworks` of every WorkloadEndpoint the pod converts to (Multus gives several), as
   * CIDRs or bare IPs; `null` when the conversion failed.
   */
  readonly endpointIpNetworks: readonly string[] | null;
}

/** What the GC saw of the KubeVirt VM / VMI named by an allocation's `vmi-name` attribute. */
export type VmLookup =
  /** The KubeVirt indexers are not set up (KubeVirt not installed). */
  | 'kubevirtAbsent'
  /** A lookup failed. */
  | 'error'
  /** The VirtualMachine `namespace/vmi-name` exists. */
  | 'vmExists'
  /** Only a VMI exists, and no VirtualMachine owns it. */
  | 'standaloneVmiExists'
  /** Neither exists, or only a VMI owned by a (deleted) VirtualMachine. */
  | 'notFound';

/** The GC's memory about one allocation between scans (Calico's `leakedAt` and `confirmedLeak`). */
export interface LeakState {
  /** When the allocation was first seen as a leak candidate (ms since epoch), or `null`. */
  readonly leakedAtMs: number | null;
  /** Whether the allocation is already a confirmed leak. */
  readonly confirmedLeak: boolean;
}

/**
 * Everything the leak predicate needs about one allocation, gathered by the caller (the GC): the
 * block's record of it, the node and pod/VM lookups, the grace period, the clock and the state
 * carried over from the previous scan. Nothing here is looked up by this package.
 */
export interface AllocationFacts extends LeakState {
  /** The allocated address. */
  readonly ip: IpAddress;
  /** The allocation's handle id. */
  readonly handle: string;
  /** The active owner attributes (`node`, `namespace`, `pod`, `type`, `vmi-name`, ...). */
  readonly attrs: Readonly<Record<string, string>>;
  /**
   * The Kubernetes node name for the allocation's Calico node; `''` when the Calico node no
   * longer exists (Calico's `a.knode`).
   */
  readonly knode: string;
  /** Whether the Kubernetes node `knode` exists (a lister error other than NotFound counts as yes). */
  readonly kubernetesNodeExists: boolean;
  /**
   * For tunnel addresses only: whether every other allocation on the node may be released
   * (Calico's `canDelete`). Defaults to `false`, which keeps tunnel addresses.
   */
  readonly nodeReleasable?: boolean;
  /** Pod lookup result; omitted means not looked up, judged like a lookup error (valid). */
  readonly pod?: PodLookup;
  /** VM lookup result; omitted means not looked up, judged like a lookup error (valid). */
  readonly vm?: VmLookup;
  /** `leakGracePeriod` in ms; `null` when unset (pods on live nodes are then never marked). */
  readonly leakGracePeriodMs: number | null;
  /** The current time, ms since epoch. */
  readonly nowMs: number;
}
