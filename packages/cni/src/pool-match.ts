import { formatCidr, parseCidr } from '@netledger/accounting';
import { enabledPools } from '@netledger/ipam-core';
import type { IPPool } from '@netledger/ipam-core';
import { CniError, CniErrorCode } from './cni-error.js';

/** Whether `entry` of `ipv4_pools`/`ipv6_pools` (a pool name, or a CIDR) names `pool`. */
export function poolMatches(pool: IPPool, entry: string): boolean {
  if (!entry.includes('/')) return pool.metadata.name === entry;
  try {
    return (
      formatCidr(parseCidr(pool.spec.cidr, { strict: false })) ===
      formatCidr(parseCidr(entry, { strict: false }))
    );
  } catch {
    return false;
  }
}

/**
 * The enabled pools of `version` that `requested` names, in its order. An entry that names no
 * enabled pool of that version is an invalid network config (7), with calico-ipam's words, so ADD
 * refuses it before writing anything.
 */
export function resolveRequestedPools(
  pools: readonly IPPool[],
  requested: readonly string[],
  version: 4 | 6,
): IPPool[] {
  const usable = enabledPools(pools, version);
  return requested.map((entry) => {
    const pool = usable.find((p) => poolMatches(p, entry));
    if (pool === undefined) {
      throw new CniError(
        CniErrorCode.InvalidNetworkConfig,
        `the given pool (${entry}) does not exist, or is not enabled`,
      );
    }
    return pool;
  });
}
