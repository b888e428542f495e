import { WINDOWS_RESERVED_HANDLE } from '@netledger/accounting';
import type { AllocationAttribute, AllocationBlock } from '../model/block.js';

/** Calico's handle for addresses held back at the ends of Windows blocks (defined by accounting). */
export { WINDOWS_RESERVED_HANDLE };

/** Drops anything after a carriage return (repairs handles from host-local migrations). */
export function sanitizeHandle(handle: string): string {
  const cut = handle.indexOf('\r');
  return cut < 0 ? handle : handle.slice(0, cut);
}

const sameMap = (
  a?: Readonly<Record<string, string>>,
  b?: Readonly<Record<string, string>>,
): boolean => {
  if (a === undefined || b === undefined) return a === b;
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => b[k] === a[k]);
};

/** True when two attribute records are equal field by field (absent and empty maps differ). */
function sameAttribute(a: AllocationAttribute, b: AllocationAttribute): boolean {
  return (
    a.handleId === b.handleId &&
    a.releasedAt === b.releasedAt &&
    sameMap(a.activeOwnerAttrs, b.activeOwnerAttrs) &&
    sameMap(a.alternateOwnerAttrs, b.alternateOwnerAttrs)
  );
}

/**
 * The index of an attribute equal to `attr`, appending it when none is: identical owners share
 * one record, as Calico's `findOrAddAttribute` does. Returns the new attribute list too.
 */
export function findOrAddAttribute(
  attributes: readonly AllocationAttribute[],
  attr: AllocationAttribute,
): { attributes: readonly AllocationAttribute[]; index: number } {
  const found = attributes.findIndex((a) => sameAttribute(a, attr));
  if (found >= 0) return { attributes, index: found };
  return { attributes: [...attributes, attr], index: attributes.length };
}

/** The attribute an ordinal points at, if allocated. */
export function attributeOf(
  block: AllocationBlock,
  ordinal: number,
): AllocationAttribute | undefined {
  const idx = block.allocations[ordinal];
  return idx === null || idx === undefined ? undefined : block.attributes[idx];
}

/** The sanitized handle of an attribute ('' when none). */
export function handleOf(attr: AllocationAttribute | undefined): string {
  return attr?.handleId === undefined ? '' : sanitizeHandle(attr.handleId);
}
