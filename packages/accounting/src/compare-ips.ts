import type { IpAddress } from './ip-address.js';

/** Total order on addresses: every IPv4 address sorts before every IPv6 one, then by value. */
export function compareIps(a: IpAddress, b: IpAddress): number {
  if (a.version !== b.version) return a.version - b.version;
  return a.value < b.value ? -1 : a.value > b.value ? 1 : 0;
}
