import {
  cidrContainsCidr,
  cidrContainsIp,
  formatCidr,
  formatIp,
  hostCidr,
  nthAddress,
  parseCidr,
  parseIp,
} from '@netledger/accounting';
import type { Cidr, IpAddress } from '@netledger/accounting';
import { isIpamError } from '@netledger/ipam-core';
import type { IPPool, IPReservation } from '@netledger/ipam-core';
import { CniError, CniErrorCode } from './cni-error.js';
import type { IpamResult } from './cni-result.js';
import type { CommandContext } from './command-context.js';
import { checkGatewayInSegment, segmentEdges } from './gateway-conf.js';
import type { CniRoute, GatewayConf } from './gateway-conf.js';
import { blocksHolding, findReservedHolder } from './reserved-holder.js';

/** One family's L2 segment: its subnet (the prefix results carry) and its gateway. */
interface Segment {
  readonly subnet: Cidr;
  readonly gateway: IpAddress;
}

/** What gateway mode needs for one ADD: the segments of the families assigned, and more. */
export interface GatewayPlan {
  /** The IPReservation holding each segment's gateway, network and broadcast addresses. */
  readonly reservationName: string;
  readonly segments: readonly Segment[];
  readonly routes: readonly CniRoute[];
  /** The blocks that can hold the reserved addresses, read to check that none is allocated. */
  readonly reservedBlocks: readonly string[];
}

/** One family of the request: the pool entries it names and the pools they resolved to. */
export interface FamilyPools {
  readonly version: 4 | 6;
  readonly requested: readonly string[];
  readonly pools: readonly IPPool[];
}

const invalid = (msg: string): CniError => new CniError(CniErrorCode.InvalidNetworkConfig, msg);

/** FNV-1a, 32 bits, of the UTF-8 bytes of `text`. */
function fnv1a32(text: string): number {
  let h = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) h = Math.imul(h ^ byte, 0x01000193) >>> 0;
  return h;
}

/**
 * The IPReservation of a network's gateways: `netledger-gw-<network>-<hash>`, a DNS-1123 label
 * (at most 63 characters) whatever the network is called; the FNV-1a hash of the exact name keeps
 * networks whose names only differ in case or punctuation apart.
 */
export function reservationNameFor(network: string): string {
  const readable = network
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .slice(0, 40)
    .replace(/^-+|-+$/g, '');
  const hash = fnv1a32(network).toString(16).padStart(8, '0');
  return `netledger-gw-${readable === '' ? '' : `${readable}-`}${hash}`;
}

function segmentFor(network: string, conf: GatewayConf, family: FamilyPools): Segment {
  const v = family.version;
  const configured = v === 4 ? conf.v4 : conf.v6;
  if (family.requested.length === 0) {
    // Gateway mode chosen by the main plugin: say which, so the user knows why it applies.
    const why =
      conf.mainPlugin === undefined
        ? '"mode": "gateway"'
        : `gateway mode (the default under main plugin ${JSON.stringify(conf.mainPlugin)})`;
    throw invalid(`network ${network}: ${why} needs ipv${v}_pools: the pools of the segment`);
  }
  let subnet = configured.subnet;
  if (subnet === undefined) {
    if (family.pools.length !== 1) {
      throw invalid(
        `network ${network}: ipv${v}_pools names ${family.pools.length} pools; give ipv${v}_subnet, the segment they share`,
      );
    }
    subnet = parseCidr(family.pools[0]!.spec.cidr, { strict: false });
  }
  for (const pool of family.pools) {
    if (!cidrContainsCidr(subnet, parseCidr(pool.spec.cidr, { strict: false }))) {
      throw invalid(
        `network ${network}: pool ${pool.metadata.name} (${pool.spec.cidr}) is outside the segment ${formatCidr(subnet)}`,
      );
    }
  }
  const gateway = configured.gateway ?? nthAddress(subnet, 1);
  checkGatewayInSegment(gateway, subnet, `ipv${v}_gateway`);
  return { subnet, gateway };
}

/** The addresses gateway mode never hands out: each segment's gateway, network and broadcast. */
export function reservedAddresses(plan: Pick<GatewayPlan, 'segments'>): IpAddress[] {
  return plan.segments.flatMap((s) => [s.gateway, ...segmentEdges(s.subnet)]);
}

/**
 * The gateway-mode plan of one ADD, checked against the pools before anything is written: each
 * family assigned names its pools (`ipv4_pools`), which lie inside the segment (`ipv4_subnet`, by
 * default the one pool named), whose gateway (`ipv4_gateway`, by default its first host address)
 * is a host address of it. Anything else is an invalid network config (7). `pools` are all the
 * pools (the reserved addresses' blocks are found in them).
 */
export function planGateway(args: {
  network: string;
  conf: GatewayConf;
  families: readonly FamilyPools[];
  pools: readonly IPPool[];
}): GatewayPlan {
  const segments = args.families.map((f) => segmentFor(args.network, args.conf, f));
  return {
    reservationName: reservationNameFor(args.network),
    segments,
    routes: args.conf.routes,
    reservedBlocks: blocksHolding(reservedAddresses({ segments }), args.pools),
  };
}

function whatIs(plan: GatewayPlan, ip: IpAddress): string {
  const s = plan.segments.find((x) => cidrContainsIp(x.subnet, ip))!;
  const role = ip.value === s.gateway.value ? 'gateway' : 'network or broadcast address';
  return `the ${role} of ${formatCidr(s.subnet)}`;
}

const sameSet = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((x) => b.includes(x));

/**
 * Makes the network's IPReservation hold the plan's reserved addresses, so no auto-assignment
 * (ours or any other network's from the same pools) hands them out and `ipam show` counts them
 * reserved, and checks on every ADD that no allocation holds one of them: a reservation does not
 * release what was allocated before it existed, and a specific address (calico-ipam's `IP=`,
 * `assignIp`) is given out whatever the reservations say, as in Calico. A held address fails 999,
 * naming the holder and how to release it, with nothing written. A reservation that already holds
 * the addresses is the fast path (the reservation and the reserved addresses' blocks read in
 * parallel). Every write is a compare-and-swap: a concurrent creator's reservation is read back
 * and compared.
 */
export async function ensureGatewayReservation(
  ctx: Pick<CommandContext, 'client' | 'datastore' | 'log'>,
  plan: GatewayPlan,
): Promise<void> {
  const { client, log } = ctx;
  const wanted = reservedAddresses(plan).map((ip) => formatCidr(hostCidr(ip)));
  for (let attempt = 0; attempt < 3; attempt++) {
    const [current] = await Promise.all([
      client.reservations.get(plan.reservationName).catch((e: unknown) => {
        if (isIpamError(e, 'DoesNotExist')) return undefined;
        throw e;
      }),
      refuseAllocated(ctx, plan),
    ]);
    if (current && sameSet(current.spec.reservedCIDRs, wanted)) return;
    const next: IPReservation = {
      metadata: {
        name: plan.reservationName,
        ...(current?.metadata.resourceVersion !== undefined && {
          resourceVersion: current.metadata.resourceVersion,
        }),
      },
      spec: { reservedCIDRs: wanted },
    };
    try {
      if (current) await client.reservations.update(next);
      else await client.reservations.create(next);
      log.info(`reservation ${plan.reservationName} holds ${wanted.join(', ')}`);
      return;
    } catch (e) {
      // Another invocation wrote it first: read it again.
      if (!isIpamError(e, 'AlreadyExists', 'ConfigConflict')) throw e;
    }
  }
  throw new CniError(
    CniErrorCode.TryAgainLater,
    `reservation ${plan.reservationName} keeps changing under this ADD`,
  );
}

async function refuseAllocated(
  ctx: Pick<CommandContext, 'datastore'>,
  plan: GatewayPlan,
): Promise<void> {
  const holder = await findReservedHolder(ctx.datastore, {
    addresses: reservedAddresses(plan),
    blocks: plan.reservedBlocks,
  });
  if (holder === undefined) return;
  const { ip } = holder;
  throw new CniError(
    CniErrorCode.Internal,
    `${ip}, ${whatIs(plan, parseIp(ip))}, is allocated to handle ${holder.handle ?? '(no handle)'}: release it (netledgerctl ipam release --ip ${ip}) before gateway mode can use the segment`,
  );
}

/**
 * The result of gateway mode for the assigned addresses (bare, or with any prefix): each with its
 * segment's prefix, the segments' gateways, and the configured routes. An address outside its
 * segment, or one the segment never hands out, fails (999): it would break the main plugin's
 * segment, so ADD releases it instead of returning it.
 */
export function gatewayResult(plan: GatewayPlan, addresses: readonly string[]): IpamResult {
  const gateways: { v4?: string; v6?: string } = {};
  const key = (ip: IpAddress): string => `${ip.version}:${ip.value}`;
  const reserved = new Set(reservedAddresses(plan).map(key));
  const ips = addresses.map((a) => {
    const ip = parseIp(a.split('/')[0]!);
    const segment = plan.segments.find((s) => cidrContainsIp(s.subnet, ip));
    if (segment === undefined) {
      throw new CniError(
        CniErrorCode.Internal,
        `${formatIp(ip)} is outside the segments ${plan.segments.map((s) => formatCidr(s.subnet)).join(', ')}`,
      );
    }
    if (reserved.has(key(ip))) {
      throw new CniError(
        CniErrorCode.Internal,
        `${formatIp(ip)} is ${whatIs(plan, ip)}, which gateway mode never hands out`,
      );
    }
    gateways[ip.version === 4 ? 'v4' : 'v6'] = formatIp(segment.gateway);
    return `${formatIp(ip)}/${segment.subnet.prefix}`;
  });
  return { ips, gateways, routes: plan.routes };
}
