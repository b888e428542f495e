import {
  cidrContainsIp,
  formatCidr,
  formatIp,
  lastAddress,
  parseCidr,
  parseIp,
} from '@netledger/accounting';
import type { Cidr, IpAddress } from '@netledger/accounting';
import { CniError, CniErrorCode } from './cni-error.js';

/**
 * How ADD shapes its result. `calico`: calico-ipam's result, each address with its block's mask
 * and no gateway, for main plugins that route per address (Calico's own). `gateway`: for main
 * plugins that put the containers on one L2 segment with a gateway on it (`bridge` with
 * `isGateway`, `macvlan`, `ipvlan`, `ptp`, podman's and containerd's networks): the addresses carry
 * the segment's prefix and the result names the gateway, which is never handed out. Without
 * `mode` the main plugin decides (see {@link parseGatewayConf}).
 */
export type ResultMode = 'calico' | 'gateway';

/** A route of the result, as host-local's `routes` (no `gw`: the main plugin uses the gateway). */
export interface CniRoute {
  readonly dst: string;
  readonly gw?: string;
}

/** One family's segment in gateway mode, as configured (both optional: see gateway-mode.ts). */
interface SegmentConf {
  readonly subnet?: Cidr;
  readonly gateway?: IpAddress;
}

/** The gateway-mode keys of `ipam`, parsed. */
export interface GatewayConf {
  readonly v4: SegmentConf;
  readonly v6: SegmentConf;
  readonly routes: readonly CniRoute[];
  /** The main plugin (the netconf's `type`) that chose gateway mode, when `ipam` names no `mode`. */
  readonly mainPlugin?: string;
}

type Json = Record<string, unknown>;

const GATEWAY_KEYS = [
  'ipv4_subnet',
  'ipv4_gateway',
  'ipv6_subnet',
  'ipv6_gateway',
  'routes',
] as const;

const decoding = (msg: string): CniError =>
  new CniError(CniErrorCode.DecodingFailure, `failed to load netconf: ${msg}`);
const invalid = (msg: string): CniError => new CniError(CniErrorCode.InvalidNetworkConfig, msg);

function text(ipam: Json, key: string): string | undefined {
  const v = ipam[key];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw decoding(`${key} must be a JSON string, got ${typeof v}`);
  return v;
}

/** The addresses a segment never hands out besides its gateway: network and (IPv4) broadcast. */
export function segmentEdges(subnet: Cidr): IpAddress[] {
  const network = { version: subnet.version, value: subnet.base };
  return subnet.version === 4 ? [network, lastAddress(subnet)] : [network];
}

function parseSegment(ipam: Json, version: 4 | 6): SegmentConf {
  const subnetKey = `ipv${version}_subnet`;
  const gatewayKey = `ipv${version}_gateway`;
  const subnetText = text(ipam, subnetKey);
  const gatewayText = text(ipam, gatewayKey);
  let subnet: Cidr | undefined;
  if (subnetText !== undefined) {
    try {
      subnet = parseCidr(subnetText);
    } catch (e) {
      throw invalid(`${subnetKey} ${JSON.stringify(subnetText)}: ${(e as Error).message}`);
    }
    if (subnet.version !== version) {
      throw invalid(`${subnetKey} ${JSON.stringify(subnetText)} is not an IPv${version} subnet`);
    }
    // Room for the network address, the gateway, one container and (IPv4) the broadcast address.
    if (subnet.prefix > (version === 4 ? 30 : 126)) {
      throw invalid(`${subnetKey} ${subnetText} is too small for a gateway and containers`);
    }
  }
  let gateway: IpAddress | undefined;
  if (gatewayText !== undefined) {
    try {
      gateway = parseIp(gatewayText);
    } catch {
      throw invalid(`${gatewayKey} ${JSON.stringify(gatewayText)} is not an IP address`);
    }
    if (gateway.version !== version) {
      throw invalid(`${gatewayKey} ${gatewayText} is not an IPv${version} address`);
    }
    if (subnet !== undefined) checkGatewayInSegment(gateway, subnet, gatewayKey);
  }
  return { ...(subnet && { subnet }), ...(gateway && { gateway }) };
}

/** A gateway must be a host address of its segment: inside it, not its network or broadcast. */
export function checkGatewayInSegment(gateway: IpAddress, subnet: Cidr, what: string): void {
  const g = formatIp(gateway);
  const s = formatCidr(subnet);
  if (!cidrContainsIp(subnet, gateway)) throw invalid(`${what} ${g} is outside the segment ${s}`);
  if (segmentEdges(subnet).some((e) => e.value === gateway.value)) {
    throw invalid(`${what} ${g} is the network or broadcast address of ${s}`);
  }
}

function parseRoutes(ipam: Json): CniRoute[] {
  const v = ipam['routes'];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw decoding('routes must be a list of {"dst": CIDR, "gw"?: IP}');
  return v.map((r: unknown, i) => {
    if (typeof r !== 'object' || r === null || Array.isArray(r)) {
      throw decoding(`routes[${i}] must be an object`);
    }
    const { dst, gw } = r as Json;
    if (typeof dst !== 'string') throw decoding(`routes[${i}].dst must be a JSON string`);
    if (gw !== undefined && typeof gw !== 'string') {
      throw decoding(`routes[${i}].gw must be a JSON string`);
    }
    let dstCidr: string;
    try {
      // The kernel refuses a destination with host bits set; host-local masks them as Go does.
      dstCidr = formatCidr(parseCidr(dst, { strict: false }));
    } catch {
      throw invalid(`routes[${i}].dst ${JSON.stringify(dst)} is not a CIDR`);
    }
    if (gw === undefined) return { dst: dstCidr };
    let gwIp: string;
    try {
      gwIp = formatIp(parseIp(gw));
    } catch {
      throw invalid(`routes[${i}].gw ${JSON.stringify(gw)} is not an IP address`);
    }
    if (gwIp.includes(':') !== dstCidr.includes(':')) {
      throw invalid(`routes[${i}]: gw ${gwIp} and dst ${dstCidr} are of different families`);
    }
    return { dst: dstCidr, gw: gwIp };
  });
}

/**
 * The mode a netconf without `ipam.mode` gets from its main plugin, `type` (the IPAM plugin is
 * handed the main plugin's config): `calico` under Calico's own plugin, and when there is no main
 * plugin (no `type`, or the IPAM plugin's own: a bare IPAM config run by hand or in tests), as
 * calico-ipam; `gateway` under any other (`bridge`, `ptp`, `macvlan`, `ipvlan`, podman's and
 * containerd's networks), which all need a gateway on the segment. Pure.
 */
function defaultModeFor(args: { mainType: unknown; ipamType: unknown }): {
  mode: ResultMode;
  mainPlugin?: string;
} {
  const { mainType, ipamType } = args;
  if (typeof mainType !== 'string' || mainType === '') return { mode: 'calico' };
  if (mainType === 'calico' || mainType === 'netledger-ipam' || mainType === ipamType) {
    return { mode: 'calico' };
  }
  return { mode: 'gateway', mainPlugin: mainType };
}

/**
 * Reads `mode` and, in gateway mode, `ipv4_subnet`, `ipv4_gateway`, `ipv6_subnet`,
 * `ipv6_gateway` and `routes`, from the `ipam` object only (a top-level `mode` is macvlan's and
 * ipvlan's own key). Without `mode` the main plugin's `type` (`mainType`, the netconf's top-level
 * one) chooses it ({@link defaultModeFor}); an explicit `mode` always wins. A gateway-mode key in
 * calico mode is refused, as is an unknown mode, a subnet with host bits, a gateway outside its
 * subnet or on its network or broadcast address (7); a value of the wrong JSON type is 6.
 */
export function parseGatewayConf(
  ipam: Json,
  mainType?: unknown,
): { mode: ResultMode; gateway?: GatewayConf } {
  const explicit = text(ipam, 'mode');
  const { mode, mainPlugin } =
    explicit === undefined
      ? defaultModeFor({ mainType, ipamType: ipam['type'] })
      : { mode: explicit, mainPlugin: undefined };
  if (mode !== 'calico' && mode !== 'gateway') {
    throw invalid(`mode ${JSON.stringify(mode)} is not "calico" or "gateway"`);
  }
  if (mode === 'calico') {
    const stray = GATEWAY_KEYS.find((k) => ipam[k] !== undefined && ipam[k] !== null);
    if (stray !== undefined) throw invalid(`${stray} needs "mode": "gateway" in ipam`);
    return { mode };
  }
  return {
    mode,
    gateway: {
      v4: parseSegment(ipam, 4),
      v6: parseSegment(ipam, 6),
      routes: parseRoutes(ipam),
      ...(mainPlugin !== undefined && { mainPlugin }),
    },
  };
}
