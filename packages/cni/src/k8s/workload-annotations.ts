// Calico's per-pod and per-namespace IPAM annotations (cni-plugin/pkg/k8s/k8s.go), parsed from
// plain data: which pools, which families, which specific addresses (through IPAM or not), and
// floating IPs. The messages are Calico's where it has one. No I/O here.
import { formatIp, parseCidr, parseIp } from '@netledger/accounting';
import { CniError, CniErrorCode } from '../cni-error.js';

/** The annotation keys, as users write them. */
export const ANNOTATIONS = {
  ipv4Pools: 'cni.projectcalico.org/ipv4pools',
  ipv6Pools: 'cni.projectcalico.org/ipv6pools',
  ipFamilies: 'cni.projectcalico.org/ipFamilies',
  ipAddrs: 'cni.projectcalico.org/ipAddrs',
  ipAddrsNoIpam: 'cni.projectcalico.org/ipAddrsNoIpam',
  floatingIps: 'cni.projectcalico.org/floatingIPs',
} as const;

/** What a pod's (and its namespace's) annotations ask of IPAM; absent fields ask nothing. */
export interface WorkloadIpamRequest {
  /** Pool names or CIDRs: the pod's annotation, else the namespace's. */
  readonly ipv4Pools?: readonly string[];
  readonly ipv6Pools?: readonly string[];
  /** `ipFamilies`: which families to assign (pod's, else namespace's). */
  readonly families?: { readonly ipv4: boolean; readonly ipv6: boolean };
  /** `ipAddrs` (pod only): at most one address per family, canonical, assigned through IPAM. */
  readonly ipAddrs?: readonly string[];
  /** `ipAddrsNoIpam` (pod only): returned as they are, IPAM not involved. */
  readonly ipAddrsNoIpam?: readonly string[];
  /** `floatingIPs` (pod only). */
  readonly floatingIps?: readonly string[];
}

type Annotations = Readonly<Record<string, string>>;

const invalid = (msg: string): CniError => new CniError(CniErrorCode.InvalidNetworkConfig, msg);

/** The pod's value when non-empty, else the namespace's (Calico's precedence, key by key). */
function podOverNamespace(key: string, pod: Annotations, ns: Annotations): string | undefined {
  const v = pod[key] || ns[key];
  return v === undefined || v === '' ? undefined : v;
}

function parseJson(text: string): { value: unknown } | { error: string } {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

function stringList(key: string, text: string): string[] {
  const parsed = parseJson(text);
  if ('error' in parsed)
    throw invalid(`error parsing ${key} ${JSON.stringify(text)}: ${parsed.error}`);
  const v = parsed.value;
  if (v === null) return [];
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) {
    throw invalid(`error parsing ${key} ${JSON.stringify(text)}: not a JSON list of strings`);
  }
  return v as string[];
}

/** A pool list: names or CIDRs of the family (calico-ipam's messages for a bad or foreign CIDR). */
function poolList(key: string, text: string, version: 4 | 6): string[] {
  const list = stringList(key, text);
  for (const p of list) {
    if (!p.includes('/')) continue;
    let cidr;
    try {
      cidr = parseCidr(p, { strict: false });
    } catch {
      throw invalid(`${key}: error parsing pool ${JSON.stringify(p)}: invalid CIDR address`);
    }
    if (cidr.version !== version) {
      throw invalid(
        `${key}: error parsing pool ${JSON.stringify(p)}: "${p.split('/')[0]}" isn't a IPv${version} address`,
      );
    }
  }
  return list;
}

function families(text: string): { ipv4: boolean; ipv6: boolean } {
  const list = stringList(ANNOTATIONS.ipFamilies, text);
  const bad = list.find((f) => f !== 'IPv4' && f !== 'IPv6');
  if (bad !== undefined || list.length === 0) {
    throw invalid(
      `error parsing ipFamilies: ${bad === undefined ? 'no family' : `unknown family ${JSON.stringify(bad)}`} in ${text} (IPv4, IPv6)`,
    );
  }
  return { ipv4: list.includes('IPv4'), ipv6: list.includes('IPv6') };
}

/** Calico's `validateAndExtractIPs`: a JSON list, not empty, valid addresses, one per family. */
function addressList(key: string, text: string): string[] {
  const parsed = parseJson(text);
  if ('error' in parsed) {
    throw invalid(
      `failed to parse IPs ${text} for annotation "${key}": failed to parse '${text}' as JSON: ${parsed.error}`,
    );
  }
  const v = parsed.value;
  if (v !== null && (!Array.isArray(v) || v.some((s) => typeof s !== 'string'))) {
    throw invalid(
      `failed to parse IPs ${text} for annotation "${key}": failed to parse '${text}' as JSON: not a list of strings`,
    );
  }
  const list = (v ?? []) as string[];
  if (list.length === 0) throw invalid(`annotation "${key}" specified but empty`);
  const seen = new Set<4 | 6>();
  return list.map((text_) => {
    let ip;
    try {
      ip = parseIp(text_);
    } catch {
      throw invalid(`invalid IP format: ${text_}`);
    }
    if (seen.has(ip.version)) {
      throw invalid(`cannot have more than one IPv${ip.version} address for "${key}" annotation`);
    }
    seen.add(ip.version);
    return formatIp(ip);
  });
}

function floatingList(text: string): string[] {
  const list = stringList(ANNOTATIONS.floatingIps, text);
  for (const ip of list) {
    try {
      parseIp(ip);
    } catch {
      throw invalid(`invalid IP format in ${ANNOTATIONS.floatingIps}: ${ip}`);
    }
  }
  return list;
}

/**
 * Reads what the annotations ask of IPAM. Pools and families: a non-empty pod annotation overrides
 * the namespace's, key by key; `ipAddrs`, `ipAddrsNoIpam` and `floatingIPs` are read from the pod
 * only. Throws `InvalidNetworkConfig` (7) with Calico's message for malformed JSON, a bad address
 * or family, more than one address of a family, an empty list of addresses, a CIDR of the wrong
 * family, or `ipAddrs` together with `ipAddrsNoIpam`. Feature gates are not checked here.
 */
export function parseWorkloadAnnotations(input: {
  readonly pod: Annotations;
  readonly namespace: Annotations;
}): WorkloadIpamRequest {
  const { pod, namespace } = input;
  const v4 = podOverNamespace(ANNOTATIONS.ipv4Pools, pod, namespace);
  const v6 = podOverNamespace(ANNOTATIONS.ipv6Pools, pod, namespace);
  const fam = podOverNamespace(ANNOTATIONS.ipFamilies, pod, namespace);
  const ipAddrs = pod[ANNOTATIONS.ipAddrs] || undefined;
  const noIpam = pod[ANNOTATIONS.ipAddrsNoIpam] || undefined;
  const floating = pod[ANNOTATIONS.floatingIps] || undefined;
  if (ipAddrs !== undefined && noIpam !== undefined) {
    throw invalid(
      "can't have both annotations: 'ipAddrs' and 'ipAddrsNoIpam' in use at the same time",
    );
  }
  return {
    ...(v4 !== undefined && { ipv4Pools: poolList(ANNOTATIONS.ipv4Pools, v4, 4) }),
    ...(v6 !== undefined && { ipv6Pools: poolList(ANNOTATIONS.ipv6Pools, v6, 6) }),
    ...(fam !== undefined && { families: families(fam) }),
    ...(ipAddrs !== undefined && { ipAddrs: addressList(ANNOTATIONS.ipAddrs, ipAddrs) }),
    ...(noIpam !== undefined && {
      ipAddrsNoIpam: addressList(ANNOTATIONS.ipAddrsNoIpam, noIpam),
    }),
    ...(floating !== undefined && { floatingIps: floatingList(floating) }),
  };
}
