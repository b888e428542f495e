import { formatIp, parseIp } from '@netledger/accounting';
import type { PodFacts, PodLookup } from '@netledger/accounting';

/** The metadata an informer keys and versions objects by. */
export interface SlimMeta {
  readonly name: string;
  readonly namespace?: string;
  readonly uid: string;
  readonly resourceVersion?: string;
}

/**
 * The few fields of a Pod the GC reads, kept instead of the whole object: an informer of 10,000
 * full Pods holds ~100 MB; these hold a few hundred bytes each.
 */
export interface SlimPod {
  readonly metadata: SlimMeta;
  readonly nodeName: string;
  readonly podIp: string;
  readonly podIps: readonly string[];
  readonly phase: string;
  readonly reason: string;
  /** Addresses of every network the pod is attached to (see {@link slimPod}); null if unreadable. */
  readonly endpointIps: readonly string[] | null;
}

/** A Kubernetes Node reduced to what the GC reads: its name (existence) and labels. */
export interface SlimNode {
  readonly metadata: SlimMeta;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v !== null && typeof v === 'object' ? (v as Json) : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function meta(o: Json): SlimMeta {
  const m = obj(o.metadata);
  const rv = str(m.resourceVersion);
  const ns = str(m.namespace);
  return {
    name: str(m.name),
    ...(ns !== '' && { namespace: ns }),
    uid: str(m.uid),
    ...(rv !== '' && { resourceVersion: rv }),
  };
}

const CALICO_POD_IPS = 'cni.projectcalico.org/podIPs';
const CALICO_POD_IP = 'cni.projectcalico.org/podIP';
const MULTUS_NETWORK_STATUS = 'k8s.v1.cni.cncf.io/network-status';

/**
 * Reduces a Pod (raw JSON or client-node's V1Pod: the same field names) to a {@link SlimPod}.
 * `endpointIps` stands for Calico's WorkloadEndpoints of the pod: `status.podIPs`, Calico's
 * `podIPs`/`podIP` annotations and every address of Multus' `network-status` annotation (secondary
 * networks), or null when that annotation cannot be read (the predicate then judges the
 * allocation valid).
 */
export function slimPod(pod: unknown): SlimPod {
  const p = obj(pod);
  const spec = obj(p.spec);
  const status = obj(p.status);
  const podIps = Array.isArray(status.podIPs)
    ? status.podIPs.map((x) => str(obj(x).ip)).filter((ip) => ip !== '')
    : [];
  const annotations = obj(obj(p.metadata).annotations);
  let endpointIps: string[] | null = [...podIps];
  const calicoIps = str(annotations[CALICO_POD_IPS]) || str(annotations[CALICO_POD_IP]);
  for (const ip of calicoIps.split(',')) if (ip.trim() !== '') endpointIps.push(ip.trim());
  const networkStatus = annotations[MULTUS_NETWORK_STATUS];
  if (typeof networkStatus === 'string' && networkStatus !== '') {
    try {
      const networks: unknown = JSON.parse(networkStatus);
      if (!Array.isArray(networks)) throw new Error('not a list');
      for (const n of networks) {
        const ips = obj(n).ips;
        if (Array.isArray(ips))
          for (const ip of ips) if (typeof ip === 'string') endpointIps.push(ip);
      }
    } catch {
      endpointIps = null;
    }
  }
  return {
    metadata: meta(p),
    nodeName: str(spec.nodeName),
    podIp: str(status.podIP),
    podIps,
    phase: str(status.phase),
    reason: str(status.reason),
    endpointIps: endpointIps && [...new Set(endpointIps)],
  };
}

/** Reduces a Node to a {@link SlimNode}. */
export function slimNode(node: unknown): SlimNode {
  return { metadata: meta(obj(node)) };
}

/** The leak predicate's view of a pod. */
function podFactsOf(pod: SlimPod): PodFacts {
  return {
    nodeName: pod.nodeName,
    podIp: pod.podIp,
    podIps: pod.podIps,
    phase: pod.phase,
    reason: pod.reason,
    endpointIpNetworks: pod.endpointIps,
  };
}

/** A pod lookup for the predicate: found (with its facts) or not. */
export function podLookupOf(pod: SlimPod | undefined): PodLookup {
  return pod ? { outcome: 'found', pod: podFactsOf(pod) } : { outcome: 'notFound' };
}

/**
 * Whether a pod itself reports `ip` as its own (status or Calico's annotations; CIDR suffixes
 * ignored) and is not an evicted one. Such a pod holds the address whatever node the allocation's
 * attributes name.
 */
export function podReportsAddress(pod: SlimPod, ip: string): boolean {
  if (pod.phase === 'Failed' && pod.reason === 'Evicted') return false;
  // Fast path (every pass judges every pod): the same text, or the same text before a '/'.
  const exact = (s: string): boolean => s === ip || (s.startsWith(ip) && s[ip.length] === '/');
  if (exact(pod.podIp) || pod.podIps.some(exact) || (pod.endpointIps ?? []).some(exact))
    return true;
  const wanted = canonicalIp(ip);
  if (wanted === undefined) return false;
  const same = (s: string): boolean => canonicalIp(s.split('/')[0] ?? s) === wanted;
  return same(pod.podIp) || pod.podIps.some(same) || (pod.endpointIps ?? []).some(same);
}

function canonicalIp(text: string): string | undefined {
  try {
    return formatIp(parseIp(text.trim()));
  } catch {
    return undefined;
  }
}
