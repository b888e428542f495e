import { cidrContainsIp, compareIps, parseIp } from '@netledger/accounting';
import type { IpFamily, LbPool, LoadBalancerRequest } from './lb-request.js';
import { familyOf } from './lb-request.js';
import type { SlimService } from '@netledger/ipam-core/load-balancer';

/** A managed Service with its validated request: one holder of a handle's addresses. */
export interface Member {
  readonly svc: SlimService;
  readonly request: LoadBalancerRequest;
}

/** A Service of a sharing key that does not get the shared addresses, and why. */
export interface Refusal {
  readonly svc: SlimService;
  readonly reason: 'PortClash' | 'SharingConflict';
  readonly message: string;
}

/** What a handle's addresses must satisfy: the union of its admitted members' requests. */
export interface AddressDesire {
  readonly families: readonly IpFamily[];
  readonly required: readonly IpFamily[];
  readonly specific: Readonly<Partial<Record<IpFamily, string>>>;
  readonly pools: Readonly<Partial<Record<IpFamily, readonly string[]>>>;
}

const byAge = (a: SlimService, b: SlimService): number =>
  a.metadata.creationTimestamp < b.metadata.creationTimestamp
    ? -1
    : a.metadata.creationTimestamp > b.metadata.creationTimestamp
      ? 1
      : a.metadata.name < b.metadata.name
        ? -1
        : a.metadata.name > b.metadata.name
          ? 1
          : 0;

const sameSet = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((x) => b.includes(x));

/**
 * Which Services of one sharing key get its addresses. Services already showing one of them
 * come first, then the oldest, then by name; each is admitted if its ports (protocol and port)
 * are disjoint from every admitted one's, its specific addresses agree with the group's (one
 * already asked for, or one the group holds) and its pool lists with theirs. A later Service
 * never takes an address from an earlier one. Pure; a single Service is always admitted.
 */
export function admitMembers(
  members: readonly Member[],
  held: readonly string[],
): { readonly admitted: Member[]; readonly refused: Refusal[] } {
  const holding = (m: Member): boolean =>
    m.svc.ingress.some((e) => e.ip !== undefined && held.includes(e.ip));
  const ordered = [...members].sort(
    (a, b) => Number(holding(b)) - Number(holding(a)) || byAge(a.svc, b.svc),
  );
  const admitted: Member[] = [];
  const refused: Refusal[] = [];
  const portOwner = new Map<string, string>();
  const specific: Partial<Record<IpFamily, string>> = {};
  const pools: Partial<Record<IpFamily, readonly string[]>> = {};
  for (const m of ordered) {
    const key = m.request.sharingKey ?? '';
    const clashes = m.request.ports.filter((p) => portOwner.has(p));
    if (clashes.length > 0) {
      const owners = [...new Set(clashes.map((p) => portOwner.get(p)!))].join(', ');
      refused.push({
        svc: m.svc,
        reason: 'PortClash',
        message: `not sharing the address of sharing key "${key}": port${clashes.length > 1 ? 's' : ''} ${clashes.join(', ')} already used by service ${owners}`,
      });
      continue;
    }
    const conflict = (['IPv4', 'IPv6'] as const)
      .map((f) => {
        const want = m.request.specific[f];
        if (want !== undefined) {
          // The first admitted Service shapes the group; later ones must take what it holds.
          const have =
            specific[f] ??
            (admitted.length > 0 ? held.find((ip) => familyOf(ip) === f) : undefined);
          if (have !== undefined && have !== want)
            return `asks for ${want}, but the services of sharing key "${key}" use ${have}`;
        }
        const wantPools = m.request.pools[f];
        const havePools = pools[f];
        if (wantPools && havePools && !sameSet(wantPools, havePools))
          return `asks for ${f} pools ${wantPools.join(', ')}, but the services of sharing key "${key}" use ${havePools.join(', ')}`;
        return undefined;
      })
      .find((c) => c !== undefined);
    if (conflict !== undefined) {
      refused.push({ svc: m.svc, reason: 'SharingConflict', message: conflict });
      continue;
    }
    admitted.push(m);
    for (const p of m.request.ports) portOwner.set(p, m.svc.metadata.name);
    for (const f of ['IPv4', 'IPv6'] as const) {
      specific[f] ??= m.request.specific[f];
      pools[f] ??= m.request.pools[f];
    }
  }
  return { admitted, refused };
}

/** The union of the admitted members' requests (families in first-asked order). */
export function desireOf(admitted: readonly Member[]): AddressDesire {
  const families: IpFamily[] = [];
  const required: IpFamily[] = [];
  const specific: Partial<Record<IpFamily, string>> = {};
  const pools: Partial<Record<IpFamily, readonly string[]>> = {};
  for (const { request: r } of admitted) {
    for (const f of r.families) if (!families.includes(f)) families.push(f);
    for (const f of r.required) if (!required.includes(f)) required.push(f);
    for (const f of ['IPv4', 'IPv6'] as const) {
      specific[f] ??= r.specific[f];
      pools[f] ??= r.pools[f];
    }
  }
  return { families, required, specific, pools };
}

/** Why an address a handle holds is released. */
export type ReleaseReason =
  | 'family-not-requested'
  | 'not-the-requested-address'
  | 'pool-gone'
  | 'outside-requested-pools'
  | 'manual-pool-not-requested'
  | 'duplicate';

/** Words for a {@link ReleaseReason}, for logs and Events. */
export const RELEASE_REASON_TEXT: Readonly<Record<ReleaseReason, string>> = {
  'family-not-requested': 'its IP family is no longer requested',
  'not-the-requested-address': 'another address is requested',
  'pool-gone': 'it is in no LoadBalancer IP pool (the pool is gone)',
  'outside-requested-pools': 'it is outside the requested pools',
  'manual-pool-not-requested': 'its pool is Manual and no longer requested',
  duplicate: 'the Service holds another address of its family',
};

/** One address to assign: a specific one, or any from the named pools (or any LoadBalancer pool). */
export interface PlannedAssignment {
  readonly family: IpFamily;
  readonly ip?: string;
  readonly pools?: readonly string[];
}

/** What to do with a handle's addresses. */
export interface AddressPlan {
  /** The address kept per family. */
  readonly keep: Readonly<Partial<Record<IpFamily, string>>>;
  readonly release: readonly { readonly ip: string; readonly why: ReleaseReason }[];
  readonly assign: readonly PlannedAssignment[];
}

/**
 * Compares the addresses a handle holds with what its members want: keeps at most one per
 * requested family (the first of `preferred`, the ones the Services already show, then the
 * lowest), releases the rest (family no longer requested, not the requested address, pool gone,
 * outside the requested pools, in a Manual pool nobody names, duplicates: calico#12503's second
 * IPv4 address), and lists the families still to assign. Pure.
 */
export function planAddresses(args: {
  readonly desire: AddressDesire;
  readonly current: readonly string[];
  readonly pools: readonly LbPool[];
  readonly preferred?: readonly string[];
}): AddressPlan {
  const { desire } = args;
  const preferred = args.preferred ?? [];
  const rank = (ip: string): number => {
    const i = preferred.indexOf(ip);
    return i < 0 ? preferred.length : i;
  };
  const current = [...new Set(args.current)].sort(
    (a, b) => rank(a) - rank(b) || compareIps(parseIp(a), parseIp(b)),
  );
  const keep: Partial<Record<IpFamily, string>> = {};
  const release: { ip: string; why: ReleaseReason }[] = [];
  for (const ip of current) {
    const f = familyOf(ip);
    const addr = parseIp(ip);
    const pool = args.pools.find((p) => p.loadBalancer && cidrContainsIp(p.cidr, addr));
    const named = desire.pools[f];
    let why: ReleaseReason | undefined;
    if (!desire.families.includes(f)) why = 'family-not-requested';
    else if (desire.specific[f] !== undefined && desire.specific[f] !== ip)
      why = 'not-the-requested-address';
    else if (!pool) why = 'pool-gone';
    else if (named && !named.includes(pool.name)) why = 'outside-requested-pools';
    else if (!named && pool.manual && desire.specific[f] === undefined)
      why = 'manual-pool-not-requested';
    else if (keep[f] !== undefined) why = 'duplicate';
    if (why) release.push({ ip, why });
    else keep[f] = ip;
  }
  const assign: PlannedAssignment[] = [];
  for (const f of desire.families) {
    if (keep[f] !== undefined) continue;
    const ip = desire.specific[f];
    const pools = desire.pools[f];
    assign.push({ family: f, ...(ip !== undefined && { ip }), ...(pools && { pools }) });
  }
  return { keep, release, assign };
}

/** A member's `status.loadBalancer.ingress` addresses: its families' addresses, in its order. */
export function ingressIpsFor(
  member: Member,
  addresses: Readonly<Partial<Record<IpFamily, string>>>,
): string[] {
  return member.request.families
    .map((f) => addresses[f])
    .filter((ip): ip is string => ip !== undefined);
}
