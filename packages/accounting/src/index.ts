export { AccountingError } from './accounting-error.js';
export type { IpAddress } from './ip-address.js';
export { parseIp } from './parse-ip.js';
export { parseHostPort } from './parse-host-port.js';
export type { HostPort } from './parse-host-port.js';
export { formatIp } from './format-ip.js';
export { compareIps } from './compare-ips.js';
export {
  cidrContainsCidr,
  cidrContainsIp,
  cidrSize,
  cidrsOverlap,
  hostCidr,
  lastAddress,
  maskIp,
  nthAddress,
  ordinalOf,
} from './cidr.js';
export type { Cidr } from './cidr.js';
export { parseCidr } from './parse-cidr.js';
export { formatCidr } from './format-cidr.js';
export { parseReservedCidrs } from './parse-reserved-cidrs.js';
export { countPoolSpace } from './count-pool-space.js';
export { numReservedIpsInCidr } from './num-reserved-ips-in-cidr.js';
export { createAddressFilter } from './address-filter.js';
export type { AddressFilter } from './address-filter.js';
export { attributeBlockToPool } from './attribute-block-to-pool.js';
export type { PodFacts, PodLookup, VmLookup } from './allocation-facts.js';
export { isTunnelAllocation } from './allocation-is-valid.js';
export {
  VM_RECREATION_GRACE_MS,
  WINDOWS_RESERVED_HANDLE,
  classifyAllocation,
} from './classify-allocation.js';
export type { AllocationClassification, LeakReason } from './classify-allocation.js';
