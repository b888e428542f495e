import { cidrsOverlap } from '@netledger/accounting';
import type { Cidr } from '@netledger/accounting';
import type { IPPool } from '../model/resources.js';
import { poolCidrOf } from './pool-cidr.js';

const conditionIs = (pool: IPPool, status: 'True' | 'False'): boolean =>
  pool.status?.conditions?.some((c) => c.type === 'Allocatable' && c.status === status) ?? false;

/** Whether the pool carries the `Allocatable=True` condition (it passed the overlap check). */
const isMarkedAllocatable = (pool: IPPool): boolean => conditionIs(pool, 'True');

/** Whether the IP pool controller marked the pool `Allocatable=False` (it overlaps another). */
const isMarkedUnallocatable = (pool: IPPool): boolean => conditionIs(pool, 'False');

/** Whether the pool is being deleted (it has a `deletionTimestamp`). */
export const isTerminating = (pool: IPPool): boolean => Boolean(pool.metadata.deletionTimestamp);

const byName = (a: IPPool, b: IPPool): number =>
  a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0;

interface Parsed {
  readonly pool: IPPool;
  readonly cidr: Cidr;
}

/**
 * The pools IPAM may allocate from for one IP version, in name order: Calico's `filterIPPool`
 * (not terminating, not disabled, not `Allocatable=False`, of the version, with a parsable CIDR)
 * plus the overlap mask of `GetEnabledPools`: a pool lacking `Allocatable=True` is skipped when
 * another pool that is not disabled, and is either `Allocatable=True` or terminating, shares an
 * address with it. A pool marked `Allocatable=True` is taken at its word; disabled pools never
 * mask, even while terminating. "Covers" is read as any overlap, as the IP pool controller's trie
 * does, so a new pool wider than an active one is masked too.
 */
export function enabledPools(pools: readonly IPPool[], version: 4 | 6): IPPool[] {
  const ofVersion: Parsed[] = [];
  for (const pool of pools) {
    const cidr = poolCidrOf(pool);
    if (cidr && cidr.version === version) ofVersion.push({ pool, cidr });
  }
  const maskers = ofVersion.filter(
    ({ pool }) => pool.spec.disabled !== true && (isMarkedAllocatable(pool) || isTerminating(pool)),
  );
  const masked = (p: Parsed): boolean =>
    maskers.some(
      (m) => m.pool.metadata.name !== p.pool.metadata.name && cidrsOverlap(m.cidr, p.cidr),
    );
  return ofVersion
    .filter(
      (p) =>
        !isTerminating(p.pool) &&
        p.pool.spec.disabled !== true &&
        !isMarkedUnallocatable(p.pool) &&
        (isMarkedAllocatable(p.pool) || !masked(p)),
    )
    .map((p) => p.pool)
    .sort(byName);
}
