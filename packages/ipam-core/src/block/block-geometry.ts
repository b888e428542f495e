import type { Cidr, IpAddress } from '@netledger/accounting';
import { formatIp, nthAddress, ordinalOf, parseCidr, parseIp } from '@netledger/accounting';
import { IpamError } from '../errors.js';

/** A block CIDR parsed once: base, prefix and size, for ordinal <-> address conversion. */
export interface BlockGeometry {
  readonly cidr: Cidr;
  readonly text: string;
  readonly prefix: number;
  readonly size: number;
}

const cache = new Map<string, BlockGeometry>();

/** The geometry of a block CIDR (cached: the hot path converts ordinals on every allocation). */
export function blockGeometry(cidrText: string): BlockGeometry {
  let g = cache.get(cidrText);
  if (!g) {
    const cidr = parseCidr(cidrText);
    const hostBits = (cidr.version === 4 ? 32 : 128) - cidr.prefix;
    if (hostBits > 20) {
      throw new IpamError(
        'InvalidArgument',
        `block ${cidrText} is larger than any valid block size`,
      );
    }
    g = { cidr, text: cidrText, prefix: cidr.prefix, size: 2 ** hostBits };
    if (cache.size > 100_000) cache.clear();
    cache.set(cidrText, g);
  }
  return g;
}

/** The address of `ordinal` in the block. */
export function ordinalToAddress(g: BlockGeometry, ordinal: number): IpAddress {
  return nthAddress(g.cidr, ordinal);
}

/** The address of `ordinal` as a string, e.g. `10.0.0.5`. */
export function ordinalToIp(g: BlockGeometry, ordinal: number): string {
  return formatIp(nthAddress(g.cidr, ordinal));
}

/** The ordinal of `ip` in the block; `InvalidArgument` if it is outside ("IP x not in block y"). */
export function ipToOrdinal(g: BlockGeometry, ip: string | IpAddress): number {
  const addr = typeof ip === 'string' ? parseIp(ip) : ip;
  try {
    return ordinalOf(g.cidr, addr);
  } catch {
    throw new IpamError(
      'InvalidArgument',
      `IP ${typeof ip === 'string' ? ip : formatIp(ip)} not in block ${g.text}`,
    );
  }
}
