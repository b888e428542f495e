import {
  AccountingError,
  cidrContainsIp,
  cidrsOverlap,
  formatIp,
  parseCidr,
  parseIp,
} from '@netledger/accounting';
import type { Cidr } from '@netledger/accounting';

/** An IPv4 subnet as plain numbers: `base` is the network address (uint32), `prefix` 0-32. */
export interface Ipv4Subnet {
  readonly base: number;
  readonly prefix: number;
}

/** Parses a strict IPv4 dotted quad into a uint32; `undefined` for anything else (IPv6 included). */
export function parseIpv4(text: string): number | undefined {
  try {
    const ip = parseIp(text);
    return ip.version === 4 ? Number(ip.value) : undefined;
  } catch (e) {
    if (e instanceof AccountingError) return undefined;
    throw e;
  }
}

/** Parses a strict IPv4 CIDR (no host bits set); `undefined` for anything else. */
export function parseIpv4Subnet(text: string): Ipv4Subnet | undefined {
  try {
    const cidr = parseCidr(text, { strict: true });
    return cidr.version === 4 ? { base: Number(cidr.base), prefix: cidr.prefix } : undefined;
  } catch (e) {
    if (e instanceof AccountingError) return undefined;
    throw e;
  }
}

/** Formats a uint32 as a dotted quad. */
export function formatIpv4(value: number): string {
  return formatIp({ version: 4, value: BigInt(value) });
}

/** Formats a subnet as `a.b.c.d/p`. */
export function formatIpv4Subnet(subnet: Ipv4Subnet): string {
  return `${formatIpv4(subnet.base)}/${subnet.prefix}`;
}

/** Number of addresses in the subnet, network and broadcast included. */
export function subnetSize(subnet: Ipv4Subnet): number {
  return 2 ** (32 - subnet.prefix);
}

/** The broadcast (last) address of the subnet. */
export function broadcastOf(subnet: Ipv4Subnet): number {
  return subnet.base + subnetSize(subnet) - 1;
}

/** True when `ip` lies in the subnet, network and broadcast included. */
export function subnetContains(subnet: Ipv4Subnet, ip: number): boolean {
  return cidrContainsIp(toCidr(subnet), { version: 4, value: BigInt(ip) });
}

/** True when two subnets share at least one address. */
export function subnetsOverlap(a: Ipv4Subnet, b: Ipv4Subnet): boolean {
  return cidrsOverlap(toCidr(a), toCidr(b));
}

function toCidr(subnet: Ipv4Subnet): Cidr {
  return { version: 4, base: BigInt(subnet.base), prefix: subnet.prefix };
}

/** The deterministic MAC of an IPv4 address: `02:00:<octets in hex>` (locally administered, unicast). */
export function macForIpv4(ip: number): string {
  const octets = [ip >>> 24, (ip >>> 16) & 0xff, (ip >>> 8) & 0xff, ip & 0xff];
  return ['02', '00', ...octets.map((o) => o.toString(16).padStart(2, '0'))].join(':');
}
