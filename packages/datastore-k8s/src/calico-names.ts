// Calico's names for its IPAM objects on Kubernetes (libcalico-go/lib/names/cidr.go and the KDD
// wrappers in libcalico-go/lib/backend/k8s/resources/). These encodings are load-bearing: an
// object written under any other name is invisible to Calico, and there is no migration path.
import { createHash } from 'node:crypto';
import type { AffinityType } from '@netledger/ipam-core';
import { ipVersionOf } from '@netledger/ipam-core/adapter';

/** Label holding base32(SHA3-256(hostname)) on a BlockAffinity. */
export const LABEL_HOSTNAME_HASH = 'projectcalico.org/hostname-hash';
/** Label holding the affinity type (`host` or `virtual`) on a BlockAffinity. */
export const LABEL_AFFINITY_TYPE = 'projectcalico.org/affinity-type';
/** Label holding the IP version (`4` or `6`) on a BlockAffinity. */
export const LABEL_IP_VERSION = 'projectcalico.org/ip-version';

const MAX_NAME = 253;

/** `s` with its first `n` occurrences of `from` replaced by `-`. */
function dashUpTo(s: string, from: string, n: number): string {
  let out = s;
  for (let i = 0; i < n && out.includes(from); i++) out = out.replace(from, '-');
  return out;
}

/**
 * Calico's `names.CIDRToName`: up to 3 dots and 7 colons, then the slash, become `-`:
 * `10.0.0.0/26` -> `10-0-0-0-26`, `fd80:24e2:f998:72d6::/122` -> `fd80-24e2-f998-72d6---122`.
 */
export function cidrToName(cidr: string): string {
  return dashUpTo(dashUpTo(cidr, '.', 3), ':', 7).replace('/', '-');
}

/**
 * A BlockAffinity's name, `<host>-<cidrName>`; at 253 characters or more the host is cut and an
 * 11-hex-digit SHA-256 of `<host>+<cidrName>` appended, as Calico does (the type is not in it).
 */
export function affinityName(host: string, cidr: string): string {
  const cidrName = cidrToName(cidr);
  const name = `${host}-${cidrName}`;
  if (name.length < MAX_NAME) return name;
  const hash = createHash('sha256').update(`${host}+${cidrName}`).digest('hex').slice(0, 11);
  return `${host.slice(0, MAX_NAME - 1 - cidrName.length - 13)}-${cidrName}-${hash}`;
}

/** An IPAMHandle's name: the handle ID lower-cased (the spec keeps the original case). */
export function handleName(handleId: string): string {
  return handleId.toLowerCase();
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32, standard alphabet, no padding (Go's `base32.StdEncoding.WithPadding(NoPadding)`). */
export function base32NoPad(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** The hostname-hash label value: base32 (no padding) of SHA3-256 of the hostname, 52 characters. */
export function hostnameHash(hostname: string): string {
  return base32NoPad(createHash('sha3-256').update(hostname).digest());
}

/** The three labels Calico puts on every BlockAffinity it writes. */
export function affinityLabels(
  host: string,
  affinityType: AffinityType,
  cidr: string,
): Record<string, string> {
  return {
    [LABEL_HOSTNAME_HASH]: hostnameHash(host),
    [LABEL_AFFINITY_TYPE]: affinityType,
    [LABEL_IP_VERSION]: String(ipVersionOf(cidr)),
  };
}

/** Filters of an affinity list, as Calico's `BlockAffinityListOptions`. */
export interface AffinityFilter {
  readonly host?: string;
  readonly affinityType?: AffinityType;
  readonly ipVersion?: 4 | 6;
}

/**
 * The label selector that makes the API server do a host-scoped affinity list (empty when the list
 * is unfiltered). Rows written before the labels existed are invisible to it until
 * `upgradeAffinityLabels` has run for their host.
 */
export function affinityLabelSelector(filter: AffinityFilter): string {
  const terms: string[] = [];
  if (filter.host !== undefined) terms.push(`${LABEL_HOSTNAME_HASH}=${hostnameHash(filter.host)}`);
  if (filter.affinityType !== undefined)
    terms.push(`${LABEL_AFFINITY_TYPE}=${filter.affinityType}`);
  if (filter.ipVersion !== undefined) terms.push(`${LABEL_IP_VERSION}=${filter.ipVersion}`);
  return terms.join(',');
}

/**
 * Where netledger keeps an affinity whose Calico name is held by the other affinity type of the
 * same host and block (Calico's names leave the type out, so KDD cannot store both): a name no
 * hostname encoding produces, `<sha256 prefix>-<cidrName>-<type>`. Lists find it by its labels
 * and spec like any other row.
 */
export function alternateAffinityName(
  host: string,
  affinityType: AffinityType,
  cidr: string,
): string {
  const hash = createHash('sha256').update(`${affinityType}+${host}+${cidr}`).digest('hex');
  return `${hash.slice(0, 16)}-${cidrToName(cidr)}-${affinityType}`;
}
