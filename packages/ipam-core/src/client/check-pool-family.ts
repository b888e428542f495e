import { IpamError } from '../errors.js';
import { ipVersionOf } from '../model/keys.js';

/**
 * Refuses a requested-pool list of the wrong family, before anything is allocated (Calico checks
 * the IPv6 list only after assigning IPv4 addresses, and then discards them).
 */
export function checkPoolFamily(version: 4 | 6, requested: readonly string[] | undefined): void {
  // Names (no '/' and no ':' or '.') cannot be judged here; pool qualification resolves them.
  const wrong = (requested ?? []).some((p) => p.includes('/') && ipVersionOf(p) !== version);
  if (wrong) {
    throw new IpamError(
      'InvalidArgument',
      `provided IPv${version} IPPools list contains one or more IPv${version === 4 ? 6 : 4} IPPools`,
    );
  }
}
