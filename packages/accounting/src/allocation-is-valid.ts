import type { AllocationFacts } from './allocation-facts.js';
import { parseCidr } from './parse-cidr.js';
import { tryParseIp } from './parse-ip.js';

/** Attribute value of `type` for each kind of tunnel address. */
const TUNNEL_ADDRESS_TYPES = [
  'ipipTunnelAddress',
  'vxlanTunnelAddress',
  'vxlanV6TunnelAddress',
  'wireguardTunnelAddress',
  'wireguardV6TunnelAddress',
] as const;

/** Why {@link allocationIsValid} judged an allocation valid. */
type ValidReason =
  | 'tunnel-has-node'
  | 'vm-attrs-missing'
  | 'kubevirt-absent'
  | 'vm-lookup-error'
  | 'vm-exists'
  | 'standalone-vmi-exists'
  | 'pod-attrs-missing'
  | 'pod-lookup-error'
  | 'pod-ip-not-reported'
  | 'endpoint-unconvertible'
  | 'endpoint-unparseable'
  | 'ip-in-endpoint';

/** Why {@link allocationIsValid} judged an allocation invalid (owner gone or moved). */
type InvalidReason =
  | 'tunnel-node-unknown'
  | 'vm-gone'
  | 'pod-not-found'
  | 'pod-rescheduled'
  | 'pod-evicted'
  | 'ip-not-in-endpoint';

/** Result of the truth check. */
export type AllocationValidity =
  | { readonly valid: true; readonly reason: ValidReason }
  | { readonly valid: false; readonly reason: InvalidReason };

/** Whether the `type` attribute marks an IPIP, VXLAN or WireGuard tunnel address. */
export function isTunnelAllocation(attrs: Readonly<Record<string, string>>): boolean {
  return (TUNNEL_ADDRESS_TYPES as readonly (string | undefined)[]).includes(attrs.type);
}

const valid = (reason: ValidReason): AllocationValidity => ({ valid: true, reason });
const invalid = (reason: InvalidReason): AllocationValidity => ({ valid: false, reason });

/**
 * Calico's `allocationIsValid`: whether the owner recorded for an allocation still holds it.
 * Anything it cannot judge (missing attributes, lookup errors, unparseable data) is valid, so an
 * uncertain answer never releases an address. The caller picks cache or live lookups.
 */
export function allocationIsValid(facts: AllocationFacts): AllocationValidity {
  const { attrs } = facts;
  if (isTunnelAllocation(attrs)) {
    return facts.knode !== '' ? valid('tunnel-has-node') : invalid('tunnel-node-unknown');
  }
  if ('vmi-name' in attrs) {
    if (!attrs.namespace || !attrs['vmi-name']) return valid('vm-attrs-missing');
    switch (facts.vm ?? 'error') {
      case 'kubevirtAbsent':
        return valid('kubevirt-absent');
      case 'error':
        return valid('vm-lookup-error');
      case 'vmExists':
        return valid('vm-exists');
      case 'standaloneVmiExists':
        return valid('standalone-vmi-exists');
      case 'notFound':
        return invalid('vm-gone');
    }
  }
  if (!attrs.namespace || !attrs.pod) return valid('pod-attrs-missing');
  const lookup = facts.pod ?? { outcome: 'error' };
  if (lookup.outcome === 'error') return valid('pod-lookup-error');
  if (lookup.outcome === 'notFound') return invalid('pod-not-found');
  const pod = lookup.pod;
  if (pod.nodeName !== '' && facts.knode !== '' && pod.nodeName !== facts.knode) {
    return invalid('pod-rescheduled');
  }
  if (pod.podIp === '' || pod.podIps.length === 0) return valid('pod-ip-not-reported');
  if (pod.phase === 'Failed' && pod.reason === 'Evicted') return invalid('pod-evicted');
  if (pod.endpointIpNetworks === null) return valid('endpoint-unconvertible');
  let matched = false;
  for (const entry of pod.endpointIpNetworks) {
    const ip = endpointAddress(entry);
    if (ip === undefined) return valid('endpoint-unparseable');
    if (ip.version === facts.ip.version && ip.value === facts.ip.value) matched = true;
  }
  return matched ? valid('ip-in-endpoint') : invalid('ip-not-in-endpoint');
}

function endpointAddress(entry: string): ReturnType<typeof tryParseIp> {
  const slash = entry.indexOf('/');
  if (slash < 0) return tryParseIp(entry);
  try {
    parseCidr(entry, { strict: false });
  } catch {
    return undefined;
  }
  return tryParseIp(entry.slice(0, slash));
}
