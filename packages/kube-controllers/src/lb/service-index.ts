import { loadBalancerHandle, sharedAddressHandle } from './lb-handle.js';
import type { AssignIpsMode } from '@netledger/ipam-core/load-balancer';
import { isManagedLoadBalancer } from '@netledger/ipam-core/load-balancer';
import type { SlimService } from '@netledger/ipam-core/load-balancer';
import { sharingKeyOf } from './sharing-key.js';

/**
 * The handle holding a managed Service's addresses: its sharing key's, else its own (Calico's
 * `lb-` handle of name, namespace and uid). Undefined when the controller does not manage it.
 */
export function ownerHandleOf(svc: SlimService, mode: AssignIpsMode): string | undefined {
  if (!isManagedLoadBalancer(svc, mode)) return undefined;
  const key = sharingKeyOf(svc);
  const namespace = svc.metadata.namespace;
  return key !== undefined
    ? sharedAddressHandle({ namespace, sharingKey: key })
    : loadBalancerHandle({ name: svc.metadata.name, namespace, uid: svc.metadata.uid });
}

/** Every handle whose addresses a Service may show, managed or not (its own, its sharing key's). */
export function candidateHandlesOf(svc: SlimService): string[] {
  const namespace = svc.metadata.namespace;
  const own = loadBalancerHandle({ name: svc.metadata.name, namespace, uid: svc.metadata.uid });
  const key = sharingKeyOf(svc);
  return key === undefined ? [own] : [own, sharedAddressHandle({ namespace, sharingKey: key })];
}

function addTo(map: Map<string, Set<string>>, key: string, value: string): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(value);
}

function removeFrom(map: Map<string, Set<string>>, key: string, value: string): void {
  const set = map.get(key);
  set?.delete(value);
  if (set?.size === 0) map.delete(key);
}

/**
 * Services by the handle that holds their addresses (members) and by the handles whose
 * addresses they may still show (candidates, for status cleanup). Only LoadBalancer Services
 * and Services showing ingress addresses are indexed. No I/O.
 */
export class ServiceIndex {
  private readonly owners = new Map<string, string>();
  private readonly candidateLists = new Map<string, readonly string[]>();
  private readonly members = new Map<string, Set<string>>();
  private readonly candidates = new Map<string, Set<string>>();

  constructor(private readonly mode: AssignIpsMode) {}

  /**
   * Indexes a Service by id (`namespace/name`; undefined: deleted). Returns every handle whose
   * members or candidates it was or is among: those need a reconcile.
   */
  update(id: string, svc: SlimService | undefined): Set<string> {
    const touched = new Set<string>();
    const oldOwner = this.owners.get(id);
    if (oldOwner !== undefined) {
      touched.add(oldOwner);
      removeFrom(this.members, oldOwner, id);
      this.owners.delete(id);
    }
    for (const h of this.candidateLists.get(id) ?? []) {
      touched.add(h);
      removeFrom(this.candidates, h, id);
    }
    this.candidateLists.delete(id);
    if (!svc || (svc.type !== 'LoadBalancer' && svc.ingress.length === 0)) return touched;
    const owner = ownerHandleOf(svc, this.mode);
    if (owner !== undefined) {
      this.owners.set(id, owner);
      addTo(this.members, owner, id);
      touched.add(owner);
    }
    const list = candidateHandlesOf(svc);
    this.candidateLists.set(id, list);
    for (const h of list) {
      addTo(this.candidates, h, id);
      touched.add(h);
    }
    return touched;
  }

  /** The handle holding the Service's addresses, if it is managed. */
  ownerOf(id: string): string | undefined {
    return this.owners.get(id);
  }

  membersOf(handle: string): string[] {
    return [...(this.members.get(handle) ?? [])];
  }

  candidatesOf(handle: string): string[] {
    return [...(this.candidates.get(handle) ?? [])];
  }

  /** Every handle with members or candidates. */
  handles(): Set<string> {
    return new Set([...this.members.keys(), ...this.candidates.keys()]);
  }

  /** Ids of every managed Service. */
  managed(): string[] {
    return [...this.owners.keys()];
  }
}
