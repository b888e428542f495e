import type { Count } from '@netledger/ipam-core';
import { formatGoF, formatGoG } from './go-float.js';

/** An address count as calicoctl prints it: `%.5g` of the count as a float64. */
export function formatCount(n: Count): string {
  return formatGoG(Number(n), 5);
}

/**
 * A count with its share of `capacity`, as calicoctl prints it: `%.5g (%.f%%)` of float64s, the
 * percentage `100*n/capacity` rounded half to even (62.5 prints as 62).
 */
export function formatCountShare(n: Count, capacity: Count): string {
  const value = Number(n);
  return `${formatGoG(value, 5)} (${formatGoF((100 * value) / Number(capacity))}%)`;
}
