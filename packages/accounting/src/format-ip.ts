import type { IpAddress } from './ip-address.js';

/**
 * Formats an address: IPv4 as a dotted quad, IPv6 in RFC 5952 canonical form (lower case, no
 * leading zeros, `::` for the longest run of two or more zero groups, the first on a tie, and
 * `::ffff:a.b.c.d` for IPv4-mapped addresses).
 */
export function formatIp(ip: IpAddress): string {
  return ip.version === 4 ? formatV4(ip.value) : formatV6(ip.value);
}

function formatV4(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
}

function formatV6(value: bigint): string {
  if (value >> 32n === 0xffffn) return `::ffff:${formatV4(value & 0xffffffffn)}`;
  const groups: bigint[] = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n) groups.push((value >> shift) & 0xffffn);
  let bestStart = -1;
  let bestLength = 1; // a single zero group is never compressed (RFC 5952 §4.2.2)
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0n) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0n) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  const head = hex.slice(0, bestStart).join(':');
  const tail = hex.slice(bestStart + bestLength).join(':');
  return `${head}::${tail}`;
}
