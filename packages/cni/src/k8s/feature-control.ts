import { CniError, CniErrorCode } from '../cni-error.js';

/** Calico's `feature_control`: the annotations that are refused unless enabled. */
export interface FeatureControl {
  /** `ip_addrs_no_ipam`: honour `cni.projectcalico.org/ipAddrsNoIpam`. */
  readonly ipAddrsNoIpam: boolean;
  /** `floating_ips`: accept `cni.projectcalico.org/floatingIPs`. */
  readonly floatingIps: boolean;
}

const decoding = (msg: string): CniError => new CniError(CniErrorCode.DecodingFailure, msg);

function flag(section: Record<string, unknown>, key: string): boolean {
  const v = section[key];
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') {
    throw decoding(`failed to load netconf: feature_control.${key} must be a JSON boolean`);
  }
  return v;
}

/**
 * Reads `feature_control` (from `ipam`, else the top level, where Calico's netconf has it): both
 * flags off unless `true`. A section or flag of the wrong JSON type is `DecodingFailure` (6).
 */
export function parseFeatureControl(
  top: Readonly<Record<string, unknown>>,
  ipam: Readonly<Record<string, unknown>>,
): FeatureControl {
  const section = ipam['feature_control'] ?? top['feature_control'];
  if (section === undefined || section === null)
    return { ipAddrsNoIpam: false, floatingIps: false };
  if (typeof section !== 'object' || Array.isArray(section)) {
    throw decoding('failed to load netconf: feature_control must be an object');
  }
  const s = section as Record<string, unknown>;
  return { ipAddrsNoIpam: flag(s, 'ip_addrs_no_ipam'), floatingIps: flag(s, 'floating_ips') };
}
