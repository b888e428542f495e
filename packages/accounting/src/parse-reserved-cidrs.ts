import type { Cidr } from './cidr.js';
import { hostCidr, maskIp } from './cidr.js';
import { parseCidr } from './parse-cidr.js';
import { tryParseIp } from './parse-ip.js';

/** Result of {@link parseReservedCidrs}: the usable CIDRs and the entries that were skipped. */
export interface ReservedCidrs {
  readonly cidrs: Cidr[];
  readonly invalid: string[];
}

const V4_MAPPED_PREFIX = 0xffffn << 32n;

/**
 * Parses an IPReservation's `reservedCIDRs` as Calico does: each entry is trimmed; a blank entry
 * is ignored; a bare IP becomes a /32 or /128; a CIDR with host bits set is masked; an
 * IPv4-mapped IPv6 CIDR (`::ffff:a.b.c.d/96+n`) becomes the IPv4 CIDR it maps, as the allocator
 * matches it. Malformed entries never fail the whole list: they are returned in `invalid`.
 */
export function parseReservedCidrs(entries: readonly string[]): ReservedCidrs {
  const cidrs: Cidr[] = [];
  const invalid: string[] = [];
  for (const entry of entries) {
    const text = entry.trim();
    if (text === '') continue;
    const cidr = parseEntry(text);
    if (cidr === undefined) invalid.push(entry);
    else cidrs.push(unmapV4(cidr));
  }
  return { cidrs, invalid };
}

function parseEntry(text: string): Cidr | undefined {
  if (!text.includes('/')) {
    const ip = tryParseIp(text);
    return ip === undefined ? undefined : hostCidr(ip);
  }
  try {
    return parseCidr(text, { strict: false });
  } catch {
    return undefined;
  }
}

function unmapV4(c: Cidr): Cidr {
  if (c.version !== 6 || c.prefix < 96 || c.base >> 32n !== 0xffffn) return c;
  return maskIp({ version: 4, value: c.base - V4_MAPPED_PREFIX }, c.prefix - 96);
}
