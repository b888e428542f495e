/** An IPAM block as it is stored (Calico's JSON, the same in etcd, the file store and the CRD spec). */
export interface RawBlock {
  readonly cidr: string;
  readonly affinity?: string | null;
  readonly allocations: readonly (number | null)[];
  readonly unallocated: readonly number[];
  readonly attributes: readonly { readonly handle_id?: string | null }[] | null;
  readonly deleted?: boolean;
}

/** An IPAM handle as it is stored: how many addresses it holds in each block. */
export interface RawHandle {
  readonly handleId: string;
  readonly block: Readonly<Record<string, number>>;
  readonly deleted?: boolean;
}

/** Every IPAM block and handle of a store, read from the store itself, not through a client. */
export interface RawIpam {
  readonly blocks: readonly RawBlock[];
  readonly handles: readonly RawHandle[];
  /** Block affinities: `<host>/<cidr>` and their state (`confirmed`, `pending`, `pendingDeletion`). */
  readonly affinities: readonly {
    readonly host: string;
    readonly cidr: string;
    readonly state: string;
  }[];
}
