import { formatCidr, parseCidr } from '@netledger/accounting';
import type { CniError } from './cni-error.js';
import type { CniRoute } from './gateway-conf.js';
import { compareVersions } from './spec-versions.js';
import type { SpecVersion } from './spec-versions.js';

/**
 * What ADD produced: addresses with their prefix (the block's, or /32 and /128 for `IP=`; in
 * gateway mode the segment's), and in gateway mode the gateway of each family and the routes.
 */
export interface IpamResult {
  readonly ips: readonly string[];
  /** Gateway mode: the gateway each address of the family gets. */
  readonly gateways?: { readonly v4?: string; readonly v6?: string };
  /** Gateway mode: the routes to return instead of calico-ipam's one route per address. */
  readonly routes?: readonly CniRoute[];
  /** No routes (a KubeVirt live-migration target: the source pod keeps the route until Felix moves it). */
  readonly noRoutes?: boolean;
}

/** One IP of a result, in the spec version's shape. */
interface ResultIp {
  readonly version?: '4' | '6';
  readonly address: string;
  readonly gateway?: string;
}

/** A result in the requested spec version's shape. */
export interface CniResultJson {
  readonly cniVersion: SpecVersion;
  readonly ips: ResultIp[];
  /** Absent when there are none, as Go's `omitempty` leaves it out. */
  readonly routes?: CniRoute[];
  /** Always `{}`: libcni's `DNS` is a struct, which `omitempty` never drops. */
  readonly dns: Record<string, never>;
}

/** The error JSON of the specification. */
export interface CniErrorJson {
  readonly cniVersion?: string;
  readonly code: number;
  readonly msg: string;
  readonly details?: string;
}

/**
 * The route calico-ipam returns for an address: its own prefix as destination, but with the host
 * bits masked off. Calico prints the address itself (`10.0.0.5/26`); the kernel refuses such a
 * destination (EINVAL), which breaks plugins that install result routes, such as `bridge`.
 */
export function routeFor(address: string): { dst: string } {
  return { dst: formatCidr(parseCidr(address, { strict: false })) };
}

/**
 * Formats an ADD result for the requested version, field for field as calico-ipam prints libcni's
 * `Result` (containernetworking/cni pkg/types/100 and 040): 0.3.x and 0.4.0 carry
 * `"version": "4"|"6"` on each IP, 1.x does not; `routes` is left out when empty; `dns` is `{}`.
 * By default one route per address ({@link routeFor}) and no gateway, as calico-ipam; in gateway
 * mode each IP carries its family's gateway and the routes are the configured ones. Never
 * interfaces.
 */
export function formatResult(result: IpamResult, cniVersion: SpecVersion): CniResultJson {
  const legacy = compareVersions(cniVersion, '1.0.0') < 0;
  const routes = result.noRoutes
    ? []
    : result.routes
      ? [...result.routes]
      : result.ips.map(routeFor);
  return {
    cniVersion,
    ips: result.ips.map((address) => {
      const v6 = address.includes(':');
      const gateway = result.gateways?.[v6 ? 'v6' : 'v4'];
      return {
        ...(legacy && { version: v6 ? '6' : '4' }),
        address,
        ...(gateway !== undefined && { gateway }),
      };
    }),
    ...(routes.length > 0 && { routes }),
    dns: {},
  };
}

/** The error JSON for a {@link CniError}; `details` only when set, `cniVersion` when known. */
export function formatError(e: CniError, cniVersion?: string): CniErrorJson {
  return {
    ...(cniVersion !== undefined && { cniVersion }),
    code: e.code,
    msg: e.message,
    ...(e.details !== undefined && e.details !== '' && { details: e.details }),
  };
}

/** Prints JSON the way libcni does: indented by four spaces. */
export function printJson(value: unknown): string {
  return `${JSON.stringify(value, null, 4)}\n`;
}
