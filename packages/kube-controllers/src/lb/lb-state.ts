import { parseCidr } from '@netledger/accounting';
import type { AllocationBlock, IPPool, IPReservation, Kind, KVPair } from '@netledger/ipam-core';
import { blockAllocations, sanitizeHandle } from '@netledger/ipam-core/block';
import type { StoreChange } from '../manager/store-reflector.js';
import type { LbPool } from './lb-request.js';

/** The kinds the LoadBalancer controller follows in the store. */
export const LB_STORE_KINDS = [
  'IPPool',
  'IPReservation',
  'ClusterInformation',
  'IPAMBlock',
] as const satisfies readonly Kind[];

/** One LoadBalancer address as the store records it (a `service` attribute, a handle, not cooling). */
export interface LbAllocation {
  readonly ip: string;
  readonly handle: string;
  readonly blockCidr: string;
  /** The `service` and `namespace` attributes. */
  readonly service: string;
  readonly namespace: string;
}

/** A pool with its stored resource. */
export interface LbPoolInfo extends LbPool {
  readonly pool: IPPool;
}

/** What a store change touched: handles whose addresses changed, and whether pools did. */
export interface LbStateDelta {
  readonly handles: ReadonlySet<string>;
  readonly pools: boolean;
}

/** The LoadBalancer blocks: those with the `virtual:load-balancer` affinity, or none. */
const isLbBlock = (b: AllocationBlock): boolean =>
  b.affinity === undefined || b.affinity === null || b.affinity === 'virtual:load-balancer';

/** The controller's view of a pool resource. */
export function lbPoolOf(pool: IPPool): LbPoolInfo {
  const cidr = parseCidr(pool.spec.cidr, { strict: false });
  return {
    name: pool.metadata.name,
    cidrText: pool.spec.cidr,
    cidr,
    family: cidr.version === 4 ? 'IPv4' : 'IPv6',
    loadBalancer: (pool.spec.allowedUses ?? []).includes('LoadBalancer'),
    manual: pool.spec.assignmentMode === 'Manual',
    disabled: pool.spec.disabled === true,
    pool,
  };
}

/**
 * The LoadBalancer controller's view of the store, fed by its watch: every pool, reservation, the
 * datastore lock, and the LoadBalancer allocations of blocks that can hold them (Calico's
 * `allocationTracker`), indexed by handle and by address. Every mutation goes through
 * {@link LbState.apply}, which says what it touched. No I/O.
 */
export class LbState {
  readonly pools = new Map<string, LbPoolInfo>();
  readonly reservations = new Map<string, IPReservation>();
  readonly blocks = new Map<string, AllocationBlock>();
  readonly byHandle = new Map<string, Map<string, LbAllocation>>();
  readonly byIp = new Map<string, LbAllocation>();
  private readonly ipsByBlock = new Map<string, Map<string, LbAllocation>>();
  /** `ClusterInformation.spec.datastoreReady` (false while `datastore migrate` holds the lock). */
  datastoreReady = true;

  /** Whether a pool allows LoadBalancer use. */
  hasLoadBalancerPool(): boolean {
    for (const p of this.pools.values()) if (p.loadBalancer) return true;
    return false;
  }

  /** The addresses a handle holds, as far as the watch has told. */
  ipsOf(handle: string): string[] {
    return [...(this.byHandle.get(handle)?.keys() ?? [])];
  }

  /** Applies one store change; returns what it touched. */
  apply(change: StoreChange): LbStateDelta {
    const none: LbStateDelta = { handles: new Set(), pools: false };
    if (change.type === 'delete') {
      const key = change.key;
      switch (key.kind) {
        case 'IPAMBlock':
          return { handles: this.setBlock(key.cidr, undefined), pools: false };
        case 'IPPool':
          return { handles: new Set(), pools: this.pools.delete(key.name) };
        case 'IPReservation':
          this.reservations.delete(key.name);
          return none;
        case 'ClusterInformation':
          if (key.name === 'default') this.datastoreReady = true;
          return none;
        default:
          return none;
      }
    }
    const kv = change.kv;
    switch (kv.key.kind) {
      case 'IPAMBlock': {
        const b = kv as KVPair<'IPAMBlock'>;
        const block = b.value.deleted || !isLbBlock(b.value) ? undefined : b.value;
        return { handles: this.setBlock(b.key.cidr, block), pools: false };
      }
      case 'IPPool': {
        const pool = (kv as KVPair<'IPPool'>).value;
        this.pools.set(pool.metadata.name, lbPoolOf(pool));
        return { handles: new Set(), pools: true };
      }
      case 'IPReservation': {
        const r = (kv as KVPair<'IPReservation'>).value;
        this.reservations.set(r.metadata.name, r);
        return none;
      }
      case 'ClusterInformation':
        if (kv.key.name === 'default')
          this.datastoreReady =
            (kv as KVPair<'ClusterInformation'>).value.spec.datastoreReady !== false;
        return none;
      default:
        return none;
    }
  }

  /** Replaces a block's LoadBalancer allocations (undefined: the block is gone or not one). */
  private setBlock(cidr: string, block: AllocationBlock | undefined): Set<string> {
    const touched = new Set<string>();
    const before = this.ipsByBlock.get(cidr);
    const after = new Map<string, LbAllocation>();
    if (block) {
      this.blocks.set(cidr, block);
      for (const a of blockAllocations(block)) {
        if (a.coolingDown || a.kind !== 'load-balancer' || a.handle === undefined) continue;
        after.set(a.ip, {
          ip: a.ip,
          handle: sanitizeHandle(a.handle),
          blockCidr: cidr,
          service: a.attrs.service ?? '',
          namespace: a.attrs.namespace ?? '',
        });
      }
    } else {
      this.blocks.delete(cidr);
    }
    for (const [ip, old] of before ?? []) {
      const now = after.get(ip);
      if (now && now.handle === old.handle) continue;
      touched.add(old.handle);
      this.unindex(old);
    }
    for (const [ip, a] of after) {
      const old = before?.get(ip);
      if (old && old.handle === a.handle) {
        // The indexes hold one object per address: keep the known one unless its owner changed.
        if (old.service !== a.service || old.namespace !== a.namespace) this.index(a);
        else after.set(ip, old);
        continue;
      }
      touched.add(a.handle);
      this.index(a);
    }
    if (after.size > 0) this.ipsByBlock.set(cidr, after);
    else this.ipsByBlock.delete(cidr);
    return touched;
  }

  private index(a: LbAllocation): void {
    let ips = this.byHandle.get(a.handle);
    if (!ips) this.byHandle.set(a.handle, (ips = new Map<string, LbAllocation>()));
    ips.set(a.ip, a);
    this.byIp.set(a.ip, a);
  }

  private unindex(a: LbAllocation): void {
    const ips = this.byHandle.get(a.handle);
    ips?.delete(a.ip);
    if (ips?.size === 0) this.byHandle.delete(a.handle);
    if (this.byIp.get(a.ip) === a) this.byIp.delete(a.ip);
  }
}
