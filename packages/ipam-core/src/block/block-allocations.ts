import { WINDOWS_RESERVED_HANDLE, isTunnelAllocation } from '@netledger/accounting';
import type { AllocationAttribute, AllocationBlock } from '../model/block.js';
import { blockGeometry, ordinalToIp } from './block-geometry.js';
import { sequenceNumberForOrdinal } from './block-queries.js';

/**
 * What an allocation is for, from its attributes: a pod's (`namespace` + `pod`), a KubeVirt VM's
 * (`vmi-name`), a node's tunnel address (`type`), a LoadBalancer Service's (`service`), one of the
 * addresses a Windows node holds back, or none of these (`unknown`).
 */
export type AllocationKind =
  'pod' | 'vm' | 'tunnel' | 'load-balancer' | 'windows-reserved' | 'unknown';

/** One allocated ordinal of a block, with what every reader of allocations asks about it. */
export interface BlockAllocation {
  readonly blockCidr: string;
  readonly ordinal: number;
  readonly ip: string;
  /** Index into the block's attributes. */
  readonly attributeIndex: number;
  /** The attribute record, or undefined when the index points past the block's attributes. */
  readonly attribute: AllocationAttribute | undefined;
  /** The owning handle as recorded (`sanitizeHandle` cleans it); undefined when none is. */
  readonly handle: string | undefined;
  readonly kind: AllocationKind;
  /** Active owner attributes (`{}` when none). */
  readonly attrs: Readonly<Record<string, string>>;
  /** The `node` attribute: the host that holds the address (undefined for unclassified ones). */
  readonly node: string | undefined;
  /** The host named by the block's `host:` affinity, `''` when the block has none. */
  readonly affinityHost: string;
  /** The address is held by a node other than the block's host (`node` set and different). */
  readonly borrowed: boolean;
  /** Released and waiting out its cooldown (`releasedAt` set): not in use. */
  readonly coolingDown: boolean;
  /** The block's sequence number recorded for this ordinal, for a guarded release. */
  readonly sequenceNumber: bigint;
}

/** The {@link AllocationKind} of an attribute record (undefined record: `unknown`). */
export function allocationKind(attribute: AllocationAttribute | undefined): AllocationKind {
  if (!attribute) return 'unknown';
  const a = attribute.activeOwnerAttrs ?? {};
  if ((attribute.handleId ?? '').toLowerCase() === WINDOWS_RESERVED_HANDLE)
    return 'windows-reserved';
  if (isTunnelAllocation(a)) return 'tunnel';
  if (a['vmi-name'] !== undefined) return 'vm';
  if (a.pod && a.namespace) return 'pod';
  if (a.service !== undefined) return 'load-balancer';
  return 'unknown';
}

/**
 * Every allocated ordinal of a block in ordinal order, with its address, attribute, kind, holder
 * and sequence number: the one read model of allocations that `ipam check`, `ipam show`, the CNI
 * GC and the GC controller share. Pure; an allocation pointing at a missing attribute is yielded
 * with `attribute` undefined (and reported by {@link findBlockProblems}).
 */
export function* blockAllocations(block: AllocationBlock): Generator<BlockAllocation> {
  const geometry = blockGeometry(block.cidr);
  const affinityHost = block.affinity?.startsWith('host:') ? block.affinity.slice(5) : '';
  const limit = Math.min(block.allocations.length, geometry.size);
  for (let ordinal = 0; ordinal < limit; ordinal++) {
    const attributeIndex = block.allocations[ordinal];
    if (attributeIndex === null || attributeIndex === undefined) continue;
    const attribute =
      attributeIndex >= 0 && attributeIndex < block.attributes.length
        ? block.attributes[attributeIndex]
        : undefined;
    const attrs = attribute?.activeOwnerAttrs ?? {};
    const node = attrs.node;
    yield {
      blockCidr: block.cidr,
      ordinal,
      ip: ordinalToIp(geometry, ordinal),
      attributeIndex,
      attribute,
      handle: attribute?.handleId,
      kind: allocationKind(attribute),
      attrs,
      node,
      affinityHost,
      borrowed: node !== undefined && node !== affinityHost,
      coolingDown: attribute?.releasedAt !== undefined,
      sequenceNumber: sequenceNumberForOrdinal(block, ordinal),
    };
  }
}
