import { formatIp, parseIp } from '@netledger/accounting';
import type { Node } from '@netledger/ipam-core';

/** Node spec fields holding tunnel addresses; Calico reads only the IPv4 ones (fixed here). */
const NODE_ADDRESS_FIELDS: readonly (readonly string[])[] = [
  ['ipv4VXLANTunnelAddr'],
  ['ipv6VXLANTunnelAddr'],
  ['wireguard', 'interfaceIPv4Address'],
  ['wireguard', 'interfaceIPv6Address'],
  ['bgp', 'ipv4IPIPTunnelAddr'],
];

/**
 * The node's tunnel addresses (VXLAN, WireGuard, IPIP; IPv4 and IPv6), canonical, without a
 * prefix length; fields that are not addresses are skipped. Pure.
 */
export function nodeTunnelIps(node: Node): string[] {
  const out: string[] = [];
  for (const path of NODE_ADDRESS_FIELDS) {
    let v: unknown = node.spec;
    for (const k of path)
      v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
    if (typeof v !== 'string' || v === '') continue;
    try {
      out.push(formatIp(parseIp(v.split('/')[0]!)));
    } catch {
      // Not an address: nothing can be allocated for it.
    }
  }
  return out;
}
