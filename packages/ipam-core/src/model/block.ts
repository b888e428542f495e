import type { StoredJson } from './stored-json.js';

/** One shared attribute record of a block; allocations point at it by index. */
export interface AllocationAttribute {
  /** Owning handle (`handle_id`). */
  readonly handleId?: string;
  /** Pod, namespace, node, ... (`secondary` in Calico's JSON, for historical reasons). */
  readonly activeOwnerAttrs?: Readonly<Record<string, string>>;
  /** Live-migration target or source (`alternateOwnerAttrs`). */
  readonly alternateOwnerAttrs?: Readonly<Record<string, string>>;
  /** RFC 3339 time the addresses were released; set while they are in cooldown. */
  readonly releasedAt?: string;
  /** Stored JSON this model does not carry (legacy nulls, unknown keys); set by the codec. */
  readonly storedJson?: StoredJson;
}

/**
 * A block of addresses claimed by one host (Calico's `model.AllocationBlock`).
 *
 * Invariants: every non-null `allocations[i]` indexes `attributes`; every attribute is referenced;
 * `unallocated` is a FIFO queue without duplicates or allocated ordinals; allocated + unallocated
 * = every ordinal.
 */
export interface AllocationBlock {
  readonly cidr: string;
  /** `host:<name>` or `virtual:<name>`; absent when the block is not affine. */
  readonly affinity?: string;
  /** RFC 3339 time the block was created by a claim; guards the one-minute empty-block reclaim. */
  readonly affinityClaimTime?: string;
  readonly allocations: readonly (number | null)[];
  readonly unallocated: readonly number[];
  readonly attributes: readonly AllocationAttribute[];
  /** uint64, seeded from Unix nanoseconds: above 2^53, so a bigint. */
  readonly sequenceNumber: bigint;
  /** Decimal ordinal -> block sequence number when that ordinal was last allocated or released. */
  readonly sequenceNumberForAllocation: Readonly<Record<string, bigint>>;
  /** Kubernetes soft-delete marker. */
  readonly deleted: boolean;
  /** Deprecated predecessor of `affinity`, kept for compatibility. */
  readonly hostAffinity?: string;
  /**
   * Stored JSON this model does not carry: nil arrays and maps, legacy keys such as
   * `strictAffinity`; set by the codec, so a read-modify-write keeps them.
   */
  readonly storedJson?: StoredJson;
}
