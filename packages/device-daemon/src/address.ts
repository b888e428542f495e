import {
  cidrContainsIp,
  cidrSize,
  cidrsOverlap,
  formatCidr,
  formatIp,
  lastAddress,
} from '@netledger/accounting';
import type { Cidr } from '@netledger/accounting';

/** An address family: 4 (IPv4) or 6 (IPv6). */
export type IpFamily = 4 | 6;

/** Both families, IPv4 first: the order in which a dual-stack interface is set up and shown. */
export const FAMILIES: readonly IpFamily[] = [4, 6];

/** Bits in an address of the family. */
export function familyBits(family: IpFamily): 32 | 128 {
  return family === 4 ? 32 : 128;
}

/** The highest address of the subnet (the broadcast address, for IPv4). */
function lastOf(subnet: Cidr): bigint {
  return lastAddress(subnet).value;
}

/** Number of addresses in the subnet. */
export function subnetSize(subnet: Cidr): bigint {
  return cidrSize(subnet);
}

/** True when `ip` (of the subnet's family) lies in the subnet, edges included. */
export function subnetContains(subnet: Cidr, ip: bigint): boolean {
  return cidrContainsIp(subnet, { version: subnet.version, value: ip });
}

/** True when two subnets share an address (never across families). */
export function subnetsOverlap(a: Cidr, b: Cidr): boolean {
  return cidrsOverlap(a, b);
}

/**
 * True when `ip` may be given to a host of the subnet: inside it, and not its network or broadcast
 * address (IPv4) or its subnet-router anycast address, the all-zeros one (IPv6, RFC 4291 2.6.1).
 */
export function isHostAddress(subnet: Cidr, ip: bigint): boolean {
  if (!subnetContains(subnet, ip) || ip === subnet.base) return false;
  return subnet.version === 6 || ip !== lastOf(subnet);
}

/** An address in its canonical text form (dotted quad, or RFC 5952 for IPv6). */
export function formatAddress(family: IpFamily, ip: bigint): string {
  return formatIp({ version: family, value: ip });
}

/** A subnet as canonical `address/prefix`. */
export function formatSubnet(subnet: Cidr): string {
  return formatCidr(subnet);
}

/**
 * The deterministic MAC of an address: `02:00:` and the address's last four bytes (for IPv4 its
 * octets, as Pantavisor does). Locally administered and unicast; unique within an IPv4 pool and
 * among addresses of an IPv6 pool that differ in their low 32 bits (every dynamic one does).
 */
export function macForAddress(ip: bigint): string {
  const low = Number(ip & 0xffffffffn);
  const octets = [low >>> 24, (low >>> 16) & 0xff, (low >>> 8) & 0xff, low & 0xff];
  return ['02', '00', ...octets.map((o) => o.toString(16).padStart(2, '0'))].join(':');
}
