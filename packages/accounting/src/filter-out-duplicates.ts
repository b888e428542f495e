import { cidrContainsIp, cidrSize } from './cidr.js';
import type { Cidr } from './cidr.js';

/**
 * Calico's `filterOutDuplicates`: sorts by size ascending (stable), then drops every CIDR that a
 * later (same-size or larger) one contains, so duplicates keep their last copy. The result is
 * disjoint and the function is idempotent. The input is not modified.
 */
export function filterOutDuplicates(cidrs: readonly Cidr[]): Cidr[] {
  const sorted = [...cidrs].sort((a, b) => {
    const sa = cidrSize(a);
    const sb = cidrSize(b);
    return sa < sb ? -1 : sa > sb ? 1 : 0;
  });
  return sorted.filter(
    (cidr, i) =>
      !sorted
        .slice(i + 1)
        .some((larger) => cidrContainsIp(larger, { version: cidr.version, value: cidr.base })),
  );
}
