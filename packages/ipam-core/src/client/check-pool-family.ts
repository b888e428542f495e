import { IpamError } from '../errors.js';
import { ipVersionOf } from '../model/keys.js';
import type { IPPool } from '../model/resources.js';
import type { HostReservedRange } from '../pools/pool-qualification.js';
import { determinePools, maxPrefixLength } from '../pools/pool-qualification.js';

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

/** One family's requested pools, for {@link checkRequestedPools}. */
export interface RequestedPools {
  readonly version: 4 | 6;
  readonly requested?: readonly string[];
  readonly hostReserved?: HostReservedRange;
}

/**
 * Resolves every family's requested pools (CIDRs or names) before anything is allocated: each
 * must be an enabled pool of that family whose blocks fit the host-reserved range. Throws as pool
 * qualification does (`InvalidArgument`, `NoQualifiedPool`). Without this a bad IPv6 list given by
 * pool names would only be found after IPv4 addresses were allocated.
 */
export function checkRequestedPools(
  pools: readonly IPPool[],
  lists: readonly RequestedPools[],
): void {
  for (const l of lists) {
    if (!l.requested || l.requested.length === 0) continue;
    determinePools({
      requested: l.requested,
      version: l.version,
      node: { name: '' },
      maxPrefixLen: maxPrefixLength(l.version, l.hostReserved),
      pools,
    });
  }
}
