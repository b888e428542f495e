import type { Cidr } from './cidr.js';
import { IpSet } from './ip-set.js';

/**
 * How many addresses of `cidr` the reservations cover, allocated or not, counting overlapping
 * and nested reservations once. Exact: Calico saturates at MaxInt, this does not.
 */
export function numReservedIpsInCidr(cidr: Cidr, reservations: readonly Cidr[]): bigint {
  const whole = IpSet.fromCidrs([cidr]);
  return whole.size() - whole.difference(IpSet.fromCidrs(reservations)).size();
}
