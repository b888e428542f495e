import { attributeBlockToPool, parseCidr } from '@netledger/accounting';
import type { Cidr, LeakReason } from '@netledger/accounting';
import { isTerminating } from '@netledger/ipam-core';
import {
  blockAllocations,
  isBlockEmpty,
  parseAffinity,
  sanitizeHandle,
} from '@netledger/ipam-core/block';
import type { AllocationBlock, IPPool, IPReservation, KVPair, Node } from '@netledger/ipam-core';
import type { BlockAllocation } from '@netledger/ipam-core/block';
import { kubernetesNodeOf } from './node-mapping.js';
import type { KubernetesNodeRef } from './node-mapping.js';
import { addTo, addToSet, removeFrom, removeFromSet } from './nested-maps.js';
import type { BlockInfo, HandleInfo, PoolInfo, TrackedAllocation } from './tracked-allocation.js';

/** The pool label of blocks no pool covers (Calico's `no_ippool`). */
export const NO_POOL = 'no_ippool';

const sameAttrs = (
  a: Readonly<Record<string, string>>,
  b: Readonly<Record<string, string>>,
): boolean => {
  if (a === b) return true;
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
};

/**
 * The GC's in-memory view, derived from the datastore's stream (blocks, pools, reservations,
 * Calico nodes, handles, IPAM config). Every mutation goes through a method here, which keeps all
 * maps in agreement; {@link findStateProblems} cross-checks them (Calico's
 * `assertConsistentState`). No I/O, no clock: times are passed in.
 */
export class GcState {
  readonly blocks = new Map<string, BlockInfo>();
  readonly allocations = new Map<string, TrackedAllocation>();
  readonly allocationsByBlock = new Map<string, Map<string, TrackedAllocation>>();
  readonly allocationsByNode = new Map<string, Map<string, TrackedAllocation>>();
  readonly allocationsByHandle = new Map<string, Map<string, TrackedAllocation>>();
  readonly confirmedLeaks = new Map<string, TrackedAllocation>();
  /** Node -> its `host:`-affine blocks. */
  readonly blocksByNode = new Map<string, Set<string>>();
  /** Host-affine empty blocks -> their node. */
  readonly emptyBlocks = new Map<string, string>();
  /** Empty blocks -> when first seen empty (Calico's blockReleaseTracker); cleared by any use. */
  readonly emptySince = new Map<string, number>();
  /** Blocks with addresses in cooldown -> the earliest release time, ms. */
  readonly coldBlocks = new Map<string, number>();
  readonly pools = new Map<string, PoolInfo>();
  readonly blocksByPool = new Map<string, Set<string>>();
  readonly reservations = new Map<string, IPReservation>();
  readonly handles = new Map<string, HandleInfo>();
  /** Calico Node resources: name -> their Kubernetes node. */
  readonly calicoNodes = new Map<string, KubernetesNodeRef>();
  /** Calico nodes whose allocations changed since their last scan. */
  readonly dirtyNodes = new Set<string>();
  /** The next scan covers every node. */
  fullScanRequired = true;
  ipCooldownSeconds = 0;
  /** `ClusterInformation.spec.datastoreReady` (false while `datastore migrate` holds the lock). */
  datastoreReady = true;

  /** Applies a block as stored (a soft-deleted one is forgotten). */
  applyBlock(kv: KVPair<'IPAMBlock'>): void {
    const block = kv.value;
    const cidr = kv.key.cidr;
    if (block.deleted) {
      this.forgetBlock(cidr);
      return;
    }
    const earliest = this.applyAllocations(cidr, block);
    this.applyBlockInfo(kv, earliest);
  }

  /**
   * Tracks the block's handle-bearing allocations (keeping what is known of unchanged ones) and
   * drops those gone. Returns the earliest release time among its cooling-down addresses.
   */
  private applyAllocations(cidr: string, block: AllocationBlock): number | null {
    const old = this.allocationsByBlock.get(cidr);
    const next = new Map<string, TrackedAllocation>();
    let earliest: number | null = null;
    for (const a of blockAllocations(block)) {
      if (a.coolingDown) {
        const t = Date.parse(a.attribute?.releasedAt ?? '');
        if (!Number.isNaN(t) && (earliest === null || t < earliest)) earliest = t;
        continue;
      }
      // Calico tracks only handle-bearing allocations; the rest cannot be released by handle.
      if (a.handle === undefined) continue;
      const handle = sanitizeHandle(a.handle);
      const id = `${handle}/${a.ip}`;
      const known = old?.get(id);
      if (known) {
        if (known.sequenceNumber !== a.sequenceNumber || !sameAttrs(known.attrs, a.attrs)) {
          // Re-allocated (or re-owned) since: whatever was concluded about it no longer holds.
          this.reindexNode(known, a.node);
          known.sequenceNumber = a.sequenceNumber;
          known.attrs = a.attrs;
          known.kind = a.kind;
          this.resetLeakState(known);
        }
        next.set(id, known);
        continue;
      }
      next.set(id, this.track({ id, handle, blockCidr: cidr, allocation: a }));
    }
    if (old) for (const [id, t] of old) if (!next.has(id)) this.dropAllocation(t);
    if (next.size > 0) this.allocationsByBlock.set(cidr, next);
    else this.allocationsByBlock.delete(cidr);
    return earliest;
  }

  /** Starts tracking a new allocation in every index; its node is to be judged. */
  private track(args: {
    id: string;
    handle: string;
    blockCidr: string;
    allocation: BlockAllocation;
  }): TrackedAllocation {
    const { id, handle, blockCidr, allocation: a } = args;
    const tracked: TrackedAllocation = {
      id,
      ip: a.ip,
      handle,
      blockCidr,
      attrs: a.attrs,
      node: a.node,
      kind: a.kind,
      sequenceNumber: a.sequenceNumber,
      leakedAtMs: null,
      confirmedLeak: false,
      reason: undefined,
      observedPodUid: undefined,
      releaseRequested: false,
    };
    this.allocations.set(id, tracked);
    if (tracked.node !== undefined) {
      addTo(this.allocationsByNode, tracked.node, [id, tracked]);
      this.dirtyNodes.add(tracked.node);
    }
    addTo(this.allocationsByHandle, handle, [id, tracked]);
    return tracked;
  }

  /** Records the block's summary and re-indexes it by pool, node, emptiness and cooldown. */
  private applyBlockInfo(kv: KVPair<'IPAMBlock'>, earliest: number | null): void {
    const block = kv.value;
    const cidr = kv.key.cidr;
    const previous = this.blocks.get(cidr);
    const owner = parseAffinity(block.affinity);
    const affinityHost = owner?.type === 'host' ? owner.host : undefined;
    const claim = block.affinityClaimTime ? Date.parse(block.affinityClaimTime) : NaN;
    const info: BlockInfo = {
      cidr,
      block,
      revision: kv.revision,
      sequenceNumber: block.sequenceNumber,
      affinity: block.affinity,
      affinityHost,
      affinityClaimTimeMs: Number.isNaN(claim) ? null : claim,
      size: block.allocations.length,
      free: block.unallocated.length,
      empty: isBlockEmpty(block),
      earliestReleasedMs: earliest,
      pool: this.poolFor(cidr),
    };
    if (previous && previous.pool !== info.pool)
      removeFromSet(this.blocksByPool, previous.pool, cidr);
    addToSet(this.blocksByPool, info.pool, cidr);
    if (previous?.affinityHost !== undefined && previous.affinityHost !== affinityHost) {
      removeFromSet(this.blocksByNode, previous.affinityHost, cidr);
    }
    if (affinityHost !== undefined) {
      addToSet(this.blocksByNode, affinityHost, cidr);
      this.dirtyNodes.add(affinityHost);
    }
    this.emptyBlocks.delete(cidr);
    if (affinityHost !== undefined && info.empty) this.emptyBlocks.set(cidr, affinityHost);
    else this.emptySince.delete(cidr); // any use resets the empty-block timer
    if (earliest !== null) this.coldBlocks.set(cidr, earliest);
    else this.coldBlocks.delete(cidr);
    this.blocks.set(cidr, info);
  }

  /** Forgets a deleted block and everything derived from it. */
  forgetBlock(cidr: string): void {
    const allocations = this.allocationsByBlock.get(cidr);
    if (allocations) for (const t of [...allocations.values()]) this.dropAllocation(t);
    this.allocationsByBlock.delete(cidr);
    const info = this.blocks.get(cidr);
    if (info) {
      removeFromSet(this.blocksByPool, info.pool, cidr);
      if (info.affinityHost !== undefined) {
        removeFromSet(this.blocksByNode, info.affinityHost, cidr);
        this.dirtyNodes.add(info.affinityHost);
      }
    }
    this.blocks.delete(cidr);
    this.emptyBlocks.delete(cidr);
    this.emptySince.delete(cidr);
    this.coldBlocks.delete(cidr);
  }

  /** Applies a pool (a terminating one counts as gone, as in Calico's pool manager). */
  applyPool(pool: IPPool): void {
    if (isTerminating(pool)) {
      this.deletePool(pool.metadata.name);
      return;
    }
    let cidr: Cidr;
    try {
      cidr = parseCidr(pool.spec.cidr, { strict: false });
    } catch {
      this.deletePool(pool.metadata.name);
      return;
    }
    const blockSize = pool.spec.blockSize ?? (cidr.version === 4 ? 26 : 122);
    const name = pool.metadata.name;
    const old = this.pools.get(name);
    this.pools.set(name, { name, pool, cidr, cidrText: pool.spec.cidr, blockSize });
    if (!old || old.cidrText !== pool.spec.cidr || old.blockSize !== blockSize)
      this.reattributeBlocks();
  }

  /** Forgets a pool; its blocks go to another covering pool or {@link NO_POOL}. */
  deletePool(name: string): void {
    if (!this.pools.delete(name)) return;
    this.reattributeBlocks();
  }

  applyReservation(r: IPReservation): void {
    this.reservations.set(r.metadata.name, r);
  }

  deleteReservation(name: string): void {
    this.reservations.delete(name);
  }

  /** Applies a Calico Node resource (its Kubernetes node mapping). */
  applyCalicoNode(node: Node): void {
    const ref = kubernetesNodeOf(node);
    if (this.calicoNodes.get(node.metadata.name) !== ref) this.dirtyNodes.add(node.metadata.name);
    this.calicoNodes.set(node.metadata.name, ref);
  }

  deleteCalicoNode(name: string): void {
    if (this.calicoNodes.delete(name)) this.dirtyNodes.add(name);
  }

  /** Applies an IPAM handle; a new revision restarts its orphan observation. */
  applyHandle(kv: KVPair<'IPAMHandle'>): void {
    const old = this.handles.get(kv.key.handleId);
    const count = Object.values(kv.value.block).reduce((n, c) => n + c, 0);
    if (kv.value.deleted) {
      this.handles.delete(kv.key.handleId);
      return;
    }
    this.handles.set(kv.key.handleId, {
      key: kv.key,
      handleId: sanitizeHandle(kv.value.handleId || kv.key.handleId),
      revision: kv.revision,
      uid: kv.uid,
      count,
      orphanSinceMs: old && old.revision === kv.revision ? old.orphanSinceMs : null,
    });
  }

  deleteHandle(handleId: string): void {
    this.handles.delete(handleId);
  }

  /** Records a verdict of the leak predicate on an allocation. */
  recordVerdict(
    t: TrackedAllocation,
    v: {
      leakedAtMs: number | null;
      confirmedLeak: boolean;
      reason: LeakReason;
      observedPodUid: string | null | undefined;
    },
  ): void {
    t.leakedAtMs = v.leakedAtMs;
    t.confirmedLeak = v.confirmedLeak;
    t.reason = v.reason;
    t.observedPodUid = v.observedPodUid;
    if (t.confirmedLeak) this.confirmedLeaks.set(t.id, t);
    else this.confirmedLeaks.delete(t.id);
  }

  /** Forgets what was concluded about an allocation: it is valid until seen leaking again. */
  resetLeakState(t: TrackedAllocation): void {
    t.leakedAtMs = null;
    t.confirmedLeak = false;
    t.reason = undefined;
    t.observedPodUid = undefined;
    t.releaseRequested = false;
    this.confirmedLeaks.delete(t.id);
  }

  /** Marks allocations released by this GC, so no pass releases them again before the update. */
  markReleaseRequested(t: TrackedAllocation): void {
    t.releaseRequested = true;
  }

  /** Calico nodes a full scan covers: those holding allocations or affine blocks. */
  scannableNodes(): Set<string> {
    const nodes = new Set<string>(this.allocationsByNode.keys());
    for (const n of this.blocksByNode.keys()) nodes.add(n);
    return nodes;
  }

  /** The pool a block CIDR belongs to: the first pool (by name) overlapping it. */
  poolFor(cidr: string): string {
    if (this.pools.size === 0) return NO_POOL;
    const sorted = [...this.pools.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
    return attributeBlockToPool(parseCidr(cidr, { strict: false }), sorted)?.name ?? NO_POOL;
  }

  private reattributeBlocks(): void {
    for (const info of this.blocks.values()) {
      const pool = this.poolFor(info.cidr);
      if (pool === info.pool) continue;
      removeFromSet(this.blocksByPool, info.pool, info.cidr);
      info.pool = pool;
      addToSet(this.blocksByPool, pool, info.cidr);
    }
  }

  private reindexNode(t: TrackedAllocation, node: string | undefined): void {
    if (t.node === node) return;
    if (t.node !== undefined) {
      removeFrom(this.allocationsByNode, t.node, t.id);
      this.dirtyNodes.add(t.node);
    }
    t.node = node;
    if (node !== undefined) {
      addTo(this.allocationsByNode, node, [t.id, t]);
      this.dirtyNodes.add(node);
    }
  }

  private dropAllocation(t: TrackedAllocation): void {
    this.allocations.delete(t.id);
    if (t.node !== undefined) {
      removeFrom(this.allocationsByNode, t.node, t.id);
      this.dirtyNodes.add(t.node);
    }
    removeFrom(this.allocationsByHandle, t.handle, t.id);
    this.confirmedLeaks.delete(t.id);
  }
}
