import { formatCidr } from '@netledger/accounting';
import { IpamError } from '../errors.js';
import type { IPPool, IPPoolAllowedUse } from '../model/resources.js';
import { parseSelector } from '../selector/selector.js';
import { enabledPools } from './enabled-pools.js';
import { blockSizeOf, poolCidrOf, tryParsePoolCidr } from './pool-cidr.js';
import { DEFAULT_ALLOWED_USES } from './pool-defaults.js';

/** Addresses kept back at the start and end of every new block (Windows uses 3 and 1). */
export interface HostReservedRange {
  readonly startOfBlock: number;
  readonly endOfBlock: number;
}

/** The node a request is for: its name and labels. */
export interface QualifyingNode {
  readonly name: string;
  readonly labels?: Readonly<Record<string, string>>;
}

/** Arguments of {@link determinePools}. */
export interface DeterminePoolsArgs {
  /** Pools the request names, as CIDRs or pool names; empty or absent: choose by selectors. */
  readonly requested?: readonly string[];
  readonly version: 4 | 6;
  readonly node: QualifyingNode;
  /** Labels of the workload's namespace; absent means no labels. */
  readonly namespaceLabels?: Readonly<Record<string, string>>;
  /** From {@link maxPrefixLength}: pools with a larger block size are not qualified. */
  readonly maxPrefixLen: number;
  /** Every pool (defaulted), in any order. */
  readonly pools: readonly IPPool[];
}

/** Result of {@link determinePools}. */
export interface DeterminedPools {
  /** Pools the request may draw from, in request order or in name order. */
  readonly selected: IPPool[];
  /** Every enabled pool of the version (see {@link enabledPools}). */
  readonly enabled: IPPool[];
}

/**
 * Calico's `getMaxPrefixLen`: 32 / 128 without host-reserved addresses, otherwise the address
 * bits less the bit length of `startOfBlock + endOfBlock` (Windows' 3 + 1 gives 29 / 125). Throws
 * `InvalidArgument` ('HostReservedAttr has wrong parameters') when that is not positive.
 */
export function maxPrefixLength(version: 4 | 6, hostReserved?: HostReservedRange): number {
  const bits = version === 4 ? 32 : 128;
  if (!hostReserved) return bits;
  const reserved = hostReserved.startOfBlock + hostReserved.endOfBlock;
  const max =
    Number.isSafeInteger(reserved) && reserved > 0 ? bits - reserved.toString(2).length : 0;
  if (max <= 0) throw new IpamError('InvalidArgument', 'HostReservedAttr has wrong parameters');
  return max;
}

/** Whether the pool's nodeSelector matches the node's labels (an empty selector matches). */
export function selectsNode(pool: IPPool, labels: Readonly<Record<string, string>> = {}): boolean {
  const text = pool.spec.nodeSelector;
  return !text || parseSelector(text).matches(labels);
}

/** Whether the pool's namespaceSelector matches the namespace's labels (absent: no labels). */
export function selectsNamespace(
  pool: IPPool,
  labels: Readonly<Record<string, string>> = {},
): boolean {
  const text = pool.spec.namespaceSelector;
  return !text || parseSelector(text).matches(labels);
}

/** The pools whose allowed uses (default `[Workload, Tunnel]`) include `use`, order kept. */
export function filterPoolsByUse(pools: readonly IPPool[], use: IPPoolAllowedUse): IPPool[] {
  return pools.filter((p) => {
    const uses = p.spec.allowedUses?.length ? p.spec.allowedUses : DEFAULT_ALLOWED_USES;
    return uses.includes(use);
  });
}

/** Whether an unrequested pool is chosen for the node and namespace (`Automatic`, both selectors). */
export function selectsAutomatically(
  pool: IPPool,
  node: QualifyingNode,
  namespaceLabels?: Readonly<Record<string, string>>,
): boolean {
  return (
    (pool.spec.assignmentMode ?? 'Automatic') === 'Automatic' &&
    selectsNode(pool, node.labels) &&
    selectsNamespace(pool, namespaceLabels)
  );
}

const familyError = (version: 4 | 6): IpamError =>
  new IpamError(
    'InvalidArgument',
    `provided IPv${version} IPPools list contains one or more IPv${version === 4 ? 6 : 4} IPPools`,
  );

/** A requested entry resolved to the key it must match: a canonical CIDR or a pool name. */
type RequestKey = { readonly cidr: string } | { readonly name: string };

function resolveRequested(args: DeterminePoolsArgs): RequestKey[] {
  return (args.requested ?? []).map((entry): RequestKey => {
    if (!entry.includes('/')) {
      const named = args.pools.find((p) => p.metadata.name === entry);
      const cidr = named && poolCidrOf(named);
      if (cidr && cidr.version !== args.version) throw familyError(args.version);
      return { name: entry };
    }
    const cidr = tryParsePoolCidr(entry);
    if (!cidr) {
      throw new IpamError(
        'InvalidArgument',
        `invalid requested pool CIDR ${JSON.stringify(entry)}`,
      );
    }
    if (cidr.version !== args.version) throw familyError(args.version);
    return { cidr: formatCidr(cidr) };
  });
}

/**
 * Pool qualification (Calico's `determinePools`). Enabled pools whose block size exceeds
 * `maxPrefixLen` are not qualified; none left gives `NoQualifiedPool` ('cannot find a qualified
 * ippool'). Requested pools (CIDRs, matched after masking, or names) must each be qualified,
 * else `InvalidArgument` ('the given pool (X) does not exist, or is not enabled'); they are
 * returned in request order with selectors and assignment mode ignored. A requested pool of the
 * other family is `InvalidArgument` ('provided IPv4 IPPools list contains one or more IPv6
 * IPPools'). Otherwise the qualified `Automatic` pools whose node and namespace selectors both
 * match are returned. Unlike Calico, the block-size exclusion applies to this unrequested path
 * too, so a Windows request is never offered a pool whose blocks are too small for its
 * reservations. An invalid selector throws `InvalidArgument`.
 */
export function determinePools(args: DeterminePoolsArgs): DeterminedPools {
  const requested = resolveRequested(args);
  const enabled = enabledPools(args.pools, args.version);
  const qualified = enabled.filter((p) => blockSizeOf(p, args.version) <= args.maxPrefixLen);
  if (qualified.length === 0) {
    throw new IpamError('NoQualifiedPool', 'cannot find a qualified ippool');
  }
  if (requested.length > 0) {
    const byCidr = new Map<string, IPPool>();
    for (const p of qualified) {
      const key = formatCidr(poolCidrOf(p)!);
      if (!byCidr.has(key)) byCidr.set(key, p);
    }
    const selected = requested.map((r) => {
      const pool =
        'cidr' in r ? byCidr.get(r.cidr) : qualified.find((p) => p.metadata.name === r.name);
      if (!pool) {
        const what = 'cidr' in r ? r.cidr : r.name;
        throw new IpamError(
          'InvalidArgument',
          `the given pool (${what}) does not exist, or is not enabled`,
          { identifier: what },
        );
      }
      return pool;
    });
    return { selected, enabled };
  }
  const selected = qualified.filter((p) =>
    selectsAutomatically(p, args.node, args.namespaceLabels),
  );
  return { selected, enabled };
}
