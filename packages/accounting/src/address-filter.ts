import type { Cidr } from './cidr.js';
import type { IpAddress } from './ip-address.js';
import { IpSet } from './ip-set.js';

/** Calico's `addrFilter`: a set of CIDRs (for example the reserved ones) queried by IP or CIDR. */
export interface AddressFilter {
  /** Whether some filter CIDR contains `ip`. */
  matchesIp(ip: IpAddress): boolean;
  /** Whether some address of `c` is matched. */
  matchesSome(c: Cidr): boolean;
  /** Whether every address of `c` is matched, possibly by several filter CIDRs together. */
  matchesWholeCidr(c: Cidr): boolean;
}

/**
 * Builds a filter over `cidrs` (any versions; overlaps allowed). An empty list gives a filter that
 * matches nothing. Lookups are logarithmic: the CIDRs are merged into an {@link IpSet} once.
 */
export function createAddressFilter(cidrs: readonly Cidr[]): AddressFilter {
  // Calico sums the sizes of the de-duplicated CIDRs based inside `c`; for aligned CIDRs that is
  // the same as asking whether their union covers `c`, which the merged set answers directly.
  const set = IpSet.fromCidrs(cidrs);
  return {
    matchesIp: (ip) => set.containsIp(ip),
    matchesSome: (c) => set.overlapsCidr(c),
    matchesWholeCidr: (c) => set.containsCidr(c),
  };
}
