// Calico's Node on Kubernetes, as KDD keeps it (libcalico-go/lib/backend/k8s/resources/node.go):
// there is no Calico Node object; the Kubernetes Node carries Calico's data in annotations. Calico's
// own labels and annotations are JSON in `projectcalico.org/labels` / `projectcalico.org/annotations`
// and the node's Kubernetes labels are merged over them on read (Kubernetes wins); BGP, VXLAN and
// WireGuard addresses are one annotation each. Kubernetes labels are never written.
import type { Node } from '@netledger/ipam-core';
import type { JsonValue } from '@netledger/ipam-core/adapter';
import type { JsonObject } from './ipam-crd-codec.js';
import { BadSpec } from './ipam-crd-codec.js';

/** Calico's Node annotations (node.go and resources.go). */
const NODE_ANNOTATIONS = {
  labels: 'projectcalico.org/labels',
  annotations: 'projectcalico.org/annotations',
  kubeLabels: 'projectcalico.org/kube-labels',
  ipv4Address: 'projectcalico.org/IPv4Address',
  ipv6Address: 'projectcalico.org/IPv6Address',
  ipv4IPIPTunnelAddr: 'projectcalico.org/IPv4IPIPTunnelAddr',
  asNumber: 'projectcalico.org/ASNumber',
  routeReflectorClusterID: 'projectcalico.org/RouteReflectorClusterID',
  ipv4VXLANTunnelAddr: 'projectcalico.org/IPv4VXLANTunnelAddr',
  vxlanTunnelMACAddr: 'projectcalico.org/VXLANTunnelMACAddr',
  ipv6VXLANTunnelAddr: 'projectcalico.org/IPv6VXLANTunnelAddr',
  vxlanTunnelMACAddrV6: 'projectcalico.org/VXLANTunnelMACAddrV6',
  wireguardIPv4: 'projectcalico.org/IPv4WireguardInterfaceAddr',
  wireguardIPv6: 'projectcalico.org/IPv6WireguardInterfaceAddr',
  wireguardPublicKey: 'projectcalico.org/WireguardPublicKey',
  wireguardPublicKeyV6: 'projectcalico.org/WireguardPublicKeyV6',
} as const;

const BGP_FIELDS = [
  ['ipv4Address', NODE_ANNOTATIONS.ipv4Address],
  ['ipv6Address', NODE_ANNOTATIONS.ipv6Address],
  ['ipv4IPIPTunnelAddr', NODE_ANNOTATIONS.ipv4IPIPTunnelAddr],
  ['routeReflectorClusterID', NODE_ANNOTATIONS.routeReflectorClusterID],
] as const;
const SPEC_FIELDS = [
  ['ipv4VXLANTunnelAddr', NODE_ANNOTATIONS.ipv4VXLANTunnelAddr],
  ['vxlanTunnelMACAddr', NODE_ANNOTATIONS.vxlanTunnelMACAddr],
  ['ipv6VXLANTunnelAddr', NODE_ANNOTATIONS.ipv6VXLANTunnelAddr],
  ['vxlanTunnelMACAddrV6', NODE_ANNOTATIONS.vxlanTunnelMACAddrV6],
] as const;
const WIREGUARD_FIELDS = [
  ['interfaceIPv4Address', NODE_ANNOTATIONS.wireguardIPv4],
  ['interfaceIPv6Address', NODE_ANNOTATIONS.wireguardIPv6],
] as const;
const STATUS_FIELDS = [
  ['wireguardPublicKey', NODE_ANNOTATIONS.wireguardPublicKey],
  ['wireguardPublicKeyV6', NODE_ANNOTATIONS.wireguardPublicKeyV6],
] as const;

/** Every annotation this codec owns: a write sets or removes each of them. */
const OWNED_NODE_ANNOTATIONS: readonly string[] = Object.values(NODE_ANNOTATIONS).filter(
  (a) => a !== NODE_ANNOTATIONS.kubeLabels,
);

const isObject = (v: unknown): v is JsonObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function stringMap(v: JsonValue | undefined, what: string): Record<string, string> {
  if (v === undefined || v === null) return {};
  if (!isObject(v)) throw new BadSpec(`${what} is not an object`);
  const out: Record<string, string> = {};
  for (const [k, s] of Object.entries(v)) {
    if (typeof s !== 'string') throw new BadSpec(`${what}.${k} is not a string`);
    out[k] = s;
  }
  return out;
}

function jsonMap(text: string | undefined, what: string): Record<string, string> {
  if (text === undefined || text === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new BadSpec(`annotation ${what} is not JSON`);
  }
  return stringMap(parsed as JsonValue, `annotation ${what}`);
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** A Calico Node value from a Kubernetes Node object. */
export function decodeNode(k8s: JsonObject): Node {
  const meta = isObject(k8s.metadata) ? k8s.metadata : {};
  const name = meta.name;
  if (typeof name !== 'string' || name === '') throw new BadSpec('metadata.name is missing');
  const ann = stringMap(meta.annotations, 'metadata.annotations');
  const labels = {
    ...jsonMap(ann[NODE_ANNOTATIONS.labels], NODE_ANNOTATIONS.labels),
    ...stringMap(meta.labels, 'metadata.labels'),
  };
  const annotations = jsonMap(ann[NODE_ANNOTATIONS.annotations], NODE_ANNOTATIONS.annotations);
  const spec: Record<string, unknown> = {};
  const bgp: Record<string, unknown> = {};
  for (const [f, a] of BGP_FIELDS) if (ann[a]) bgp[f] = ann[a];
  const asn = ann[NODE_ANNOTATIONS.asNumber];
  if (asn && /^\d+(\.\d+)?$/.test(asn)) {
    // numorstring.ASNumber: plain or dotted (`1.10` = 1*65536+10) notation.
    const [hi, lo] = asn.split('.').map(Number) as [number, number | undefined];
    bgp.asNumber = lo === undefined ? hi : hi * 65536 + lo;
  }
  if (Object.keys(bgp).length > 0) spec.bgp = bgp;
  for (const [f, a] of SPEC_FIELDS) if (ann[a]) spec[f] = ann[a];
  const wireguard: Record<string, unknown> = {};
  for (const [f, a] of WIREGUARD_FIELDS) if (ann[a]) wireguard[f] = ann[a];
  if (Object.keys(wireguard).length > 0) spec.wireguard = wireguard;
  const status: Record<string, unknown> = {};
  for (const [f, a] of STATUS_FIELDS) if (ann[a]) status[f] = ann[a];
  const k8sSpec = isObject(k8s.spec) ? k8s.spec : {};
  if (Array.isArray(k8sSpec.podCIDRs) && k8sSpec.podCIDRs.length > 0) {
    status.podCIDRs = k8sSpec.podCIDRs.filter((c): c is string => typeof c === 'string');
  }
  return {
    metadata: {
      name,
      ...(Object.keys(labels).length > 0 && { labels }),
      ...(Object.keys(annotations).length > 0 && { annotations }),
    },
    spec,
    status,
  };
}

/**
 * The Calico annotations for a Node value: each owned annotation set to its value, or `null`
 * (removed, in a merge patch) when the value has none. `k8sLabels` are the Node's Kubernetes
 * labels: a value label equal to one of them is inherited, not Calico's, and is not stored.
 */
export function nodeAnnotations(
  node: Node,
  k8sLabels: Readonly<Record<string, string>>,
): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const a of OWNED_NODE_ANNOTATIONS) out[a] = null;
  const calicoLabels: Record<string, string> = {};
  for (const [k, v] of Object.entries(node.metadata.labels ?? {})) {
    if (k8sLabels[k] !== v) calicoLabels[k] = v;
  }
  if (Object.keys(calicoLabels).length > 0) {
    out[NODE_ANNOTATIONS.labels] = JSON.stringify(calicoLabels);
  }
  const calicoAnnotations = node.metadata.annotations ?? {};
  if (Object.keys(calicoAnnotations).length > 0) {
    out[NODE_ANNOTATIONS.annotations] = JSON.stringify(calicoAnnotations);
  }
  const spec = (node.spec ?? {}) as Record<string, unknown>;
  const bgp = isObject(spec.bgp) ? spec.bgp : {};
  for (const [f, a] of BGP_FIELDS) out[a] = str(bgp[f]) ?? null;
  if (typeof bgp.asNumber === 'number' || typeof bgp.asNumber === 'string') {
    out[NODE_ANNOTATIONS.asNumber] = String(bgp.asNumber);
  }
  for (const [f, a] of SPEC_FIELDS) out[a] = str(spec[f]) ?? null;
  const wg = isObject(spec.wireguard) ? spec.wireguard : {};
  for (const [f, a] of WIREGUARD_FIELDS) out[a] = str(wg[f]) ?? null;
  const status = (node.status ?? {}) as Record<string, unknown>;
  for (const [f, a] of STATUS_FIELDS) out[a] = str(status[f]) ?? null;
  return out;
}

/** Only the annotations that are set (for creating a Node). */
export function setAnnotations(a: Record<string, string | null>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(a)) if (v !== null) out[k] = v;
  return out;
}
