import { cidrContainsIp, formatCidr, formatIp, parseCidr, parseIp } from '@netledger/accounting';
import type { Cidr } from '@netledger/accounting';
import type { SlimService } from '@netledger/ipam-core/load-balancer';
import { SERVICE_ANNOTATIONS } from '@netledger/ipam-core/load-balancer';
import { SHARING_KEY_PATTERN } from './sharing-key.js';

/** A Service's IP family, as `spec.ipFamilies` names it. */
export type IpFamily = 'IPv4' | 'IPv6';

/** The family of an address (canonical or not). */
export const familyOf = (ip: string): IpFamily => (parseIp(ip).version === 4 ? 'IPv4' : 'IPv6');

/** An IP pool as the LoadBalancer controller sees it. */
export interface LbPool {
  readonly name: string;
  readonly cidrText: string;
  readonly cidr: Cidr;
  readonly family: IpFamily;
  /** `allowedUses` includes `LoadBalancer`. */
  readonly loadBalancer: boolean;
  /** `assignmentMode: Manual`: used only when a Service names it. */
  readonly manual: boolean;
  readonly disabled: boolean;
}

/** What a managed Service asks for, validated. */
export interface LoadBalancerRequest {
  /** One address per family, in the Service's order. */
  readonly families: readonly IpFamily[];
  /** Families whose missing address is worth a warning (PreferDualStack's second is not). */
  readonly required: readonly IpFamily[];
  /** Specific addresses (Calico's `loadBalancerIPs` annotation, else `spec.loadBalancerIP`), canonical. */
  readonly specific: Readonly<Partial<Record<IpFamily, string>>>;
  /** Pools named by `projectcalico.org/ipv4pools` / `ipv6pools`, resolved to pool names. */
  readonly pools: Readonly<Partial<Record<IpFamily, readonly string[]>>>;
  /** `netledger.io/sharing-key`, when set. */
  readonly sharingKey: string | undefined;
  /** `spec.ports` as `PROTOCOL/port`, for the sharing rules. */
  readonly ports: readonly string[];
}

/** A request, or why the Service's request is invalid (the text of a Warning Event). */
export type ParsedRequest =
  | { readonly ok: true; readonly request: LoadBalancerRequest }
  | { readonly ok: false; readonly message: string };

class RequestError extends Error {}

function jsonStrings(text: string, annotation: string): string[] {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new RequestError(`${annotation}: not JSON: ${JSON.stringify(text)}`);
  }
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string'))
    throw new RequestError(`${annotation}: must be a JSON list of strings, got ${text}`);
  return v;
}

function canonicalIp(text: string, where: string): string {
  try {
    return formatIp(parseIp(text.trim()));
  } catch {
    throw new RequestError(`${where}: ${JSON.stringify(text)} is not an IP address`);
  }
}

function resolvePools(
  { annotation, text }: { readonly annotation: string; readonly text: string },
  family: IpFamily,
  pools: readonly LbPool[],
): string[] {
  return jsonStrings(text, annotation).map((id) => {
    let pool = pools.find((p) => p.name === id);
    if (!pool && id.includes('/')) {
      let cidr: string | undefined;
      try {
        cidr = formatCidr(parseCidr(id, { strict: false }));
      } catch {
        cidr = undefined;
      }
      pool = pools.find((p) => formatCidr(p.cidr) === cidr);
    }
    if (!pool) throw new RequestError(`${annotation}: no IP pool named ${JSON.stringify(id)}`);
    if (pool.family !== family)
      throw new RequestError(
        `${annotation}: IP pool ${pool.name} (${pool.cidrText}) is not ${family}`,
      );
    if (!pool.loadBalancer)
      throw new RequestError(
        `${annotation}: IP pool ${pool.name} does not allow use LoadBalancer (allowedUses)`,
      );
    return pool.name;
  });
}

/**
 * Validates what a managed Service asks for against the pools: its families (`spec.ipFamilies`
 * as the API server resolved them; SingleStack keeps the first), specific addresses (Calico's
 * `projectcalico.org/loadBalancerIPs` JSON list, at most one per family, else
 * `spec.loadBalancerIP`; when given they are the Service's whole request, as in Calico), pools
 * (`projectcalico.org/ipv4pools` / `ipv6pools`: JSON lists of pool names or CIDRs, LoadBalancer
 * pools of the right family), the sharing key and the ports. Pure; an invalid request comes back
 * with a message naming the annotation or field.
 */
export function parseLoadBalancerRequest(
  svc: SlimService,
  pools: readonly LbPool[],
): ParsedRequest {
  try {
    const a = svc.metadata.annotations;
    const specific: Partial<Record<IpFamily, string>> = {};
    const named: string[] = [];
    const lbIps = a[SERVICE_ANNOTATIONS.loadBalancerIps] ?? '';
    if (lbIps !== '') {
      for (const t of jsonStrings(lbIps, SERVICE_ANNOTATIONS.loadBalancerIps))
        named.push(canonicalIp(t, SERVICE_ANNOTATIONS.loadBalancerIps));
    } else if (svc.loadBalancerIp !== '') {
      named.push(canonicalIp(svc.loadBalancerIp, 'spec.loadBalancerIP'));
    }
    for (const ip of named) {
      const f = familyOf(ip);
      if (specific[f] !== undefined && specific[f] !== ip) {
        throw new RequestError(
          `${SERVICE_ANNOTATIONS.loadBalancerIps}: at most one ${f} address, got ${specific[f]} and ${ip}`,
        );
      }
      specific[f] = ip;
    }
    const requestedPools: Partial<Record<IpFamily, string[]>> = {};
    for (const [family, annotation] of [
      ['IPv4', SERVICE_ANNOTATIONS.ipv4Pools],
      ['IPv6', SERVICE_ANNOTATIONS.ipv6Pools],
    ] as const) {
      const text = a[annotation] ?? '';
      if (text === '') continue;
      const resolved = resolvePools({ annotation, text }, family, pools);
      if (resolved.length > 0) requestedPools[family] = resolved;
      const ip = specific[family];
      if (ip !== undefined && resolved.length > 0) {
        const inside = pools.some(
          (p) => resolved.includes(p.name) && cidrContainsIp(p.cidr, parseIp(ip)),
        );
        if (!inside) throw new RequestError(`${ip} is in none of the pools ${annotation} names`);
      }
    }
    const key = a[SERVICE_ANNOTATIONS.sharingKey] || undefined;
    if (key !== undefined && !SHARING_KEY_PATTERN.test(key)) {
      throw new RequestError(
        `${SERVICE_ANNOTATIONS.sharingKey}: ${JSON.stringify(key)} is not a valid key (1-63 letters, digits, '-', '_', '.', starting and ending with a letter or digit)`,
      );
    }
    let families: IpFamily[];
    let required: IpFamily[];
    const declared = svc.ipFamilies.filter((f): f is IpFamily => f === 'IPv4' || f === 'IPv6');
    if (named.length > 0) {
      families = (['IPv4', 'IPv6'] as const).filter((f) => specific[f] !== undefined);
      if (declared[0] === 'IPv6') families.reverse();
      required = families;
    } else {
      const all: IpFamily[] = declared.length > 0 ? [...new Set(declared)] : ['IPv4'];
      families = svc.ipFamilyPolicy === 'SingleStack' ? all.slice(0, 1) : all;
      required =
        svc.ipFamilyPolicy === 'RequireDualStack' || svc.ipFamilyPolicy === 'SingleStack'
          ? families
          : families.slice(0, 1);
    }
    return {
      ok: true,
      request: {
        families,
        required,
        specific,
        pools: requestedPools,
        sharingKey: key,
        ports: [...new Set(svc.ports.map((p) => `${p.protocol}/${p.port}`))],
      },
    };
  } catch (e) {
    if (e instanceof RequestError) return { ok: false, message: e.message };
    throw e;
  }
}
