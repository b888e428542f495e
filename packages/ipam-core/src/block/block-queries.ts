import type { AddressFilter } from '@netledger/accounting';
import { IpamError } from '../errors.js';
import type { AllocationAttribute, AllocationBlock } from '../model/block.js';
import type { AffinityType } from '../model/block-affinity.js';
import { WINDOWS_RESERVED_HANDLE, attributeOf, handleOf } from './block-attributes.js';
import { blockGeometry, ipToOrdinal, ordinalToAddress, ordinalToIp } from './block-geometry.js';

/** The `type:host` string of an affinity, as stored on a block. */
export function affinityString(type: AffinityType, host: string): string {
  return `${type}:${host}`;
}

/** Parses a block's affinity (`host:node1`) into its type and host; undefined when not affine. */
export function parseAffinity(
  affinity: string | undefined,
): { type: AffinityType; host: string } | undefined {
  if (affinity === undefined) return undefined;
  if (affinity.startsWith('host:')) return { type: 'host', host: affinity.slice(5) };
  if (affinity.startsWith('virtual:')) return { type: 'virtual', host: affinity.slice(8) };
  return undefined;
}

/**
 * True when nothing but Windows-reserved addresses is allocated. Addresses in cooldown count as
 * in use, so a block with any of them is not empty.
 */
export function isBlockEmpty(block: AllocationBlock): boolean {
  return block.allocations.every(
    (idx) =>
      idx === null || handleOf(block.attributes[idx]).toLowerCase() === WINDOWS_RESERVED_HANDLE,
  );
}

/** Free addresses not covered by a reservation (0 when reservations cover the whole block). */
export function numFreeAddresses(block: AllocationBlock, reservations: AddressFilter): number {
  const g = blockGeometry(block.cidr);
  if (reservations.matchesWholeCidr(g.cidr)) return 0;
  if (!reservations.matchesSome(g.cidr)) return block.unallocated.length;
  return block.unallocated.filter((o) => !reservations.matchesIp(ordinalToAddress(g, o))).length;
}

/** Addresses of the block covered by a reservation, allocated or not. */
export function numReservedAddresses(block: AllocationBlock, reservations: AddressFilter): number {
  const g = blockGeometry(block.cidr);
  if (reservations.matchesWholeCidr(g.cidr)) return g.size;
  if (!reservations.matchesSome(g.cidr)) return 0;
  let n = 0;
  for (let o = 0; o < g.size; o++) if (reservations.matchesIp(ordinalToAddress(g, o))) n++;
  return n;
}

/**
 * Addresses held by `handleId` (compared with each allocation's sanitized handle). Allocations
 * without a handle, cooling ones included, belong to no handle, not even the empty one.
 */
export function ipsByHandleInBlock(block: AllocationBlock, handleId: string): string[] {
  const g = blockGeometry(block.cidr);
  const out: string[] = [];
  block.allocations.forEach((idx, o) => {
    const attr = idx === null ? undefined : block.attributes[idx];
    if (attr?.handleId !== undefined && handleOf(attr) === handleId) out.push(ordinalToIp(g, o));
  });
  return out;
}

/** Allocated addresses (including ones in cooldown), in ordinal order. */
export function inUseIps(block: AllocationBlock): string[] {
  const g = blockGeometry(block.cidr);
  return block.allocations.flatMap((idx, o) => (idx === null ? [] : [ordinalToIp(g, o)]));
}

/**
 * The owner of an allocated address: `DoesNotExist` if unallocated, `IpInCooldown` while it cools
 * down. The handle comes back sanitized.
 */
export function allocationAttributesForIp(block: AllocationBlock, ip: string): AllocationAttribute {
  const ordinal = ipToOrdinal(blockGeometry(block.cidr), ip);
  const attr = attributeOf(block, ordinal);
  if (!attr)
    throw new IpamError('DoesNotExist', `IP ${ip} is not assigned in block ${block.cidr}`, {
      identifier: ip,
    });
  if (attr.releasedAt !== undefined) {
    throw new IpamError(
      'IpInCooldown',
      `IP ${ip} is in cooldown (released at ${attr.releasedAt})`,
      { identifier: ip },
    );
  }
  return {
    ...(attr.handleId !== undefined && { handleId: handleOf(attr) }),
    ...(attr.activeOwnerAttrs && { activeOwnerAttrs: { ...attr.activeOwnerAttrs } }),
    ...(attr.alternateOwnerAttrs && { alternateOwnerAttrs: { ...attr.alternateOwnerAttrs } }),
  };
}

/** The block's sequence number recorded for an ordinal (0 when none is, as in Calico). */
export function sequenceNumberForOrdinal(block: AllocationBlock, ordinal: number): bigint {
  return block.sequenceNumberForAllocation[String(ordinal)] ?? 0n;
}
