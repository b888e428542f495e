import type { AllocationAttribute } from '@netledger/ipam-core';
import type { AllocationKind, BlockAllocation } from '@netledger/ipam-core/block';
import type { ReportAllocation } from './check-report.js';

/** An allocation as `ipam check` tracks it: the report's fields plus what the scans decide on. */
export interface CheckedAllocation extends ReportAllocation {
  inUse: boolean;
  owners: string[] | null;
  readonly attr: AllocationAttribute | undefined;
  readonly kind: AllocationKind;
  /** It has an attribute and its block is not deleted: its kind says who uses it. */
  readonly tracked: boolean;
}

/** The allocation as `ipam check` starts it: not in use, no owners. Pure. */
export function checkedAllocation(a: BlockAllocation, blockDeleted: boolean): CheckedAllocation {
  return {
    ip: a.ip,
    handle: a.kind === 'windows-reserved' ? undefined : a.handle,
    sequenceNumber: a.sequenceNumber,
    pod: a.attrs.pod,
    namespace: a.attrs.namespace,
    node: a.node ?? a.affinityHost,
    type: a.attrs.type,
    creationTimestamp: a.attrs.timestamp,
    inUse: false,
    borrowed: a.borrowed,
    coolingDown: a.coolingDown,
    owners: null,
    attr: a.attribute,
    kind: a.kind,
    tracked: a.attribute !== undefined && !blockDeleted,
  };
}

/** The report's part of an allocation (without what only the scans use). Pure. */
export function reportAllocation(a: CheckedAllocation): ReportAllocation {
  const { attr: _attr, kind: _kind, tracked: _tracked, ...rest } = a;
  return rest;
}

/** A pod's or a VM's: assumed in use while workload endpoints cannot be read. */
export const isWorkload = (kind: AllocationKind): boolean => kind === 'pod' || kind === 'vm';

const kvs = (m: Readonly<Record<string, string>> | undefined): string =>
  Object.keys(m ?? {})
    .sort()
    .map((k) => `${k}=${m![k]}`)
    .join(',');

/** calicoctl's `formatAttrs`: `Main:<handle> Extra:k=v,...[ Alternate:k=v,...]`. */
export function formatAttrs(attr: AllocationAttribute | undefined): string {
  if (!attr) return '<missing>';
  let s = `Main:${attr.handleId ?? '<none>'} Extra:${kvs(attr.activeOwnerAttrs)}`;
  if (Object.keys(attr.alternateOwnerAttrs ?? {}).length > 0) {
    s += ` Alternate:${kvs(attr.alternateOwnerAttrs)}`;
  }
  return s;
}
