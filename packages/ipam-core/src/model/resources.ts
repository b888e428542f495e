/** Kubernetes-style object metadata, as Calico's v3 resources carry it. */
export interface ObjectMeta {
  readonly name: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly uid?: string;
  readonly resourceVersion?: string;
  readonly creationTimestamp?: string;
  readonly deletionTimestamp?: string;
  readonly [extra: string]: unknown;
}

/** What addresses of a pool may be used for. */
export type IPPoolAllowedUse = 'Workload' | 'Tunnel' | 'LoadBalancer';

/** `Manual` pools are used only when a request names them. */
type AssignmentMode = 'Automatic' | 'Manual';

/** The IPAM-relevant part of Calico's `IPPoolSpec`; other fields are carried through untouched. */
export interface IPPoolSpec {
  readonly cidr: string;
  readonly blockSize?: number;
  readonly nodeSelector?: string;
  readonly namespaceSelector?: string;
  readonly disabled?: boolean;
  readonly allowedUses?: readonly IPPoolAllowedUse[];
  readonly assignmentMode?: AssignmentMode;
  readonly [extra: string]: unknown;
}

/** A status condition (only `Allocatable` matters to IPAM). */
export interface Condition {
  readonly type: string;
  readonly status: string;
  readonly [extra: string]: unknown;
}

/** Calico's v3 `IPPool`. */
export interface IPPool {
  readonly metadata: ObjectMeta;
  readonly spec: IPPoolSpec;
  readonly status?: {
    readonly conditions?: readonly Condition[];
    readonly [extra: string]: unknown;
  };
}

/** Calico's v3 `IPReservation`: entries are CIDRs or bare addresses. */
export interface IPReservation {
  readonly metadata: ObjectMeta;
  readonly spec: { readonly reservedCIDRs: readonly string[]; readonly [extra: string]: unknown };
}

/** Calico's v3 `Node`; IPAM reads its labels and tunnel addresses, the rest is carried through. */
export interface Node {
  readonly metadata: ObjectMeta;
  readonly spec?: Readonly<Record<string, unknown>>;
  readonly status?: Readonly<Record<string, unknown>>;
}

/** Calico's v3 `ClusterInformation` (cluster GUID, datastore-ready flag used as a lock). */
export interface ClusterInformation {
  readonly metadata: ObjectMeta;
  readonly spec: {
    readonly clusterGUID?: string;
    readonly clusterType?: string;
    readonly calicoVersion?: string;
    readonly datastoreReady?: boolean;
    readonly [extra: string]: unknown;
  };
}

/** The legacy per-host IPAM object (`/calico/ipam/v2/host/<host>`); only ever deleted. */
export type IpamHostValue = Readonly<Record<string, never>>;
