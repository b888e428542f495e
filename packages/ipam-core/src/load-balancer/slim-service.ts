/** One `spec.ports` entry as the sharing rules compare them: protocol and port. */
interface ServicePort {
  readonly protocol: string;
  readonly port: number;
}

/** One `status.loadBalancer.ingress` entry, as stored (other controllers' fields kept). */
export type IngressEntry = Readonly<Record<string, unknown>> & { readonly ip?: string };

/**
 * The fields of a Kubernetes Service that the LoadBalancer rules read, kept instead of the whole
 * object: the annotations are reduced to the ones they interpret.
 */
export interface SlimService {
  readonly metadata: {
    readonly name: string;
    readonly namespace: string;
    readonly uid: string;
    readonly resourceVersion?: string;
    readonly creationTimestamp: string;
    /** Only the annotations in {@link SERVICE_ANNOTATIONS}. */
    readonly annotations: Readonly<Record<string, string>>;
  };
  readonly type: string;
  /** `spec.loadBalancerClass`; undefined when unset. */
  readonly loadBalancerClass: string | undefined;
  /** `spec.loadBalancerIP` (deprecated by Kubernetes, honoured as Calico's annotation); '' when unset. */
  readonly loadBalancerIp: string;
  /** `spec.ipFamilies` as the API server filled it in (`IPv4`, `IPv6`). */
  readonly ipFamilies: readonly string[];
  /** `spec.ipFamilyPolicy`: `SingleStack`, `PreferDualStack`, `RequireDualStack`, or ''. */
  readonly ipFamilyPolicy: string;
  readonly ports: readonly ServicePort[];
  readonly ingress: readonly IngressEntry[];
}

/** Annotations a LoadBalancer Service may carry: Calico's three and netledger's sharing key. */
export const SERVICE_ANNOTATIONS = {
  ipv4Pools: 'projectcalico.org/ipv4pools',
  ipv6Pools: 'projectcalico.org/ipv6pools',
  loadBalancerIps: 'projectcalico.org/loadBalancerIPs',
  sharingKey: 'netledger.io/sharing-key',
} as const;

const KEPT = new Set<string>(Object.values(SERVICE_ANNOTATIONS));

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v !== null && typeof v === 'object' ? (v as Json) : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const time = (v: unknown): string =>
  v instanceof Date ? v.toISOString() : typeof v === 'string' ? v : '';

/**
 * Reduces a Service (raw JSON or client-node's V1Service: the same field names) to a
 * {@link SlimService}. Never throws: a missing or mistyped field reads as empty.
 */
export function slimService(service: unknown): SlimService {
  const s = obj(service);
  const m = obj(s.metadata);
  const spec = obj(s.spec);
  const annotations: Record<string, string> = {};
  for (const [k, v] of Object.entries(obj(m.annotations)))
    if (KEPT.has(k) && typeof v === 'string') annotations[k] = v;
  const rv = str(m.resourceVersion);
  const cls = spec.loadBalancerClass;
  return {
    metadata: {
      name: str(m.name),
      namespace: str(m.namespace),
      uid: str(m.uid),
      ...(rv !== '' && { resourceVersion: rv }),
      creationTimestamp: time(m.creationTimestamp),
      annotations,
    },
    type: str(spec.type) || 'ClusterIP',
    loadBalancerClass: typeof cls === 'string' && cls !== '' ? cls : undefined,
    loadBalancerIp: str(spec.loadBalancerIP),
    ipFamilies: Array.isArray(spec.ipFamilies)
      ? spec.ipFamilies.filter((f): f is string => typeof f === 'string')
      : [],
    ipFamilyPolicy: str(spec.ipFamilyPolicy),
    ports: Array.isArray(spec.ports)
      ? spec.ports.map((p) => ({
          protocol: str(obj(p).protocol) || 'TCP',
          port: Number(obj(p).port),
        }))
      : [],
    ingress: Array.isArray(obj(obj(s.status).loadBalancer).ingress)
      ? (obj(obj(s.status).loadBalancer).ingress as unknown[]).map((e): IngressEntry => {
          const entry: Record<string, unknown> = {};
          for (const [k, v] of Object.entries(obj(e))) if (v !== undefined) entry[k] = v;
          return entry;
        })
      : [],
  };
}
