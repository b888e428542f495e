import type { Cidr, IpAddress, LeakReason } from '@netledger/accounting';
import type { AllocationBlock, DatastoreKey, IPPool } from '@netledger/ipam-core';
import type { AllocationKind } from '@netledger/ipam-core/block';

/**
 * One handle-bearing allocation the GC tracks (Calico's `allocation`): id `<handle>/<ip>`. Its
 * leak state (`leakedAtMs`, `confirmedLeak`) is the GC's memory between scans.
 */
export interface TrackedAllocation {
  readonly id: string;
  readonly ip: string;
  readonly handle: string;
  readonly blockCidr: string;
  attrs: Readonly<Record<string, string>>;
  /** The `node` attribute (the Calico node holding it); undefined when it names none. */
  node: string | undefined;
  kind: AllocationKind;
  /** The block's sequence number for the ordinal: a release is refused if it changed since. */
  sequenceNumber: bigint;
  leakedAtMs: number | null;
  confirmedLeak: boolean;
  /** Which row of the leak table decided the last verdict. */
  reason: LeakReason | undefined;
  /** The owning pod's uid when last judged: null when it was not found, undefined if not a pod. */
  observedPodUid: string | null | undefined;
  /** Released by this GC; waiting for the block update that removes it. Never released twice. */
  releaseRequested: boolean;
  /** The address parsed, once (the predicate compares it with the pod's). */
  parsedIp?: IpAddress;
}

/** What the GC keeps of a block (not the block: its allocations are tracked separately). */
export interface BlockInfo {
  readonly cidr: string;
  /** The block as last stored (for utilization arithmetic; never mutated). */
  readonly block: AllocationBlock;
  readonly revision: string;
  readonly sequenceNumber: bigint;
  readonly affinity: string | undefined;
  /** The node of a `host:` affinity, undefined for other or no affinity. */
  readonly affinityHost: string | undefined;
  readonly affinityClaimTimeMs: number | null;
  readonly size: number;
  /** Ordinals in the free queue. */
  readonly free: number;
  /** Nothing allocated but Windows-reserved addresses (cooling addresses count as allocated). */
  readonly empty: boolean;
  /** Earliest `releasedAt` of an address in cooldown, ms; null when none cools down. */
  readonly earliestReleasedMs: number | null;
  /** The pool name, or `NO_POOL` (`no_ippool`). */
  pool: string;
}

/** A pool as the GC attributes blocks to it. */
export interface PoolInfo {
  readonly name: string;
  readonly pool: IPPool;
  readonly cidr: Cidr;
  readonly cidrText: string;
  readonly blockSize: number;
}

/** An IPAM handle object, tracked for orphan detection. */
export interface HandleInfo {
  readonly key: DatastoreKey<'IPAMHandle'>;
  /** The handle id allocations carry (sanitized). */
  readonly handleId: string;
  readonly revision: string;
  readonly uid: string | undefined;
  /** Addresses the handle says it holds, over all blocks. */
  readonly count: number;
  /** Since when (ms) it has held no tracked allocation, at its current revision; null: it holds some. */
  orphanSinceMs: number | null;
}
