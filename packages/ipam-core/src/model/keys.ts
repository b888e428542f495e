import type { AllocationBlock } from './block.js';
import type { AffinityType, BlockAffinity } from './block-affinity.js';
import type { IpamConfigValue } from './ipam-config.js';
import type { IpamHandle } from './ipam-handle.js';
import type {
  ClusterInformation,
  IPPool,
  IPReservation,
  IpamHostValue,
  Node,
} from './resources.js';

/** The key of each kind of object a Datastore holds. */
interface KeyByKind {
  IPPool: { readonly kind: 'IPPool'; readonly name: string };
  IPReservation: { readonly kind: 'IPReservation'; readonly name: string };
  Node: { readonly kind: 'Node'; readonly name: string };
  ClusterInformation: { readonly kind: 'ClusterInformation'; readonly name: string };
  IPAMConfig: { readonly kind: 'IPAMConfig' };
  IPAMBlock: { readonly kind: 'IPAMBlock'; readonly cidr: string };
  BlockAffinity: {
    readonly kind: 'BlockAffinity';
    readonly host: string;
    readonly cidr: string;
    readonly affinityType: AffinityType;
  };
  IPAMHandle: { readonly kind: 'IPAMHandle'; readonly handleId: string };
  IPAMHost: { readonly kind: 'IPAMHost'; readonly host: string };
}

/** The value stored for each kind. */
export interface ValueByKind {
  IPPool: IPPool;
  IPReservation: IPReservation;
  Node: Node;
  ClusterInformation: ClusterInformation;
  IPAMConfig: IpamConfigValue;
  IPAMBlock: AllocationBlock;
  BlockAffinity: BlockAffinity;
  IPAMHandle: IpamHandle;
  IPAMHost: IpamHostValue;
}

/** Every kind of object. */
export type Kind = keyof KeyByKind;

/** A typed key. */
export type DatastoreKey<K extends Kind = Kind> = KeyByKind[K] & { readonly kind: K };

/** Every kind, in a stable order. */
export const KINDS: readonly Kind[] = [
  'IPPool',
  'IPReservation',
  'Node',
  'ClusterInformation',
  'IPAMConfig',
  'IPAMBlock',
  'BlockAffinity',
  'IPAMHandle',
  'IPAMHost',
];

/** Filters for `list`. Affinities are listed across both types unless one is named. */
export type ListOptions<K extends Kind = Kind> = K extends 'IPAMBlock'
  ? { readonly kind: K; readonly ipVersion?: 4 | 6 }
  : K extends 'BlockAffinity'
    ? {
        readonly kind: K;
        readonly host?: string;
        readonly affinityType?: AffinityType;
        readonly ipVersion?: 4 | 6;
      }
    : { readonly kind: K };

/** Calico's v3 resource plural for the kinds stored under `/calico/resources/v3/...`. */
export const RESOURCE_PLURALS = {
  IPPool: 'ippools',
  IPReservation: 'ipreservations',
  Node: 'nodes',
  ClusterInformation: 'clusterinformations',
} as const;

type ResourceKind = keyof typeof RESOURCE_PLURALS;

const RESOURCE_ROOT = '/calico/resources/v3/projectcalico.org/';
const IPAM_ROOT = '/calico/ipam/v2/';

/** IP version of a CIDR or address string. */
export function ipVersionOf(cidrOrIp: string): 4 | 6 {
  return cidrOrIp.includes(':') ? 6 : 4;
}

const cidrToSegment = (cidr: string): string => cidr.replace('/', '-');
const segmentToCidr = (segment: string): string => {
  const at = segment.lastIndexOf('-');
  return at < 0 ? segment : `${segment.slice(0, at)}/${segment.slice(at + 1)}`;
};

function isResourceKind(kind: Kind): kind is ResourceKind {
  return kind in RESOURCE_PLURALS;
}

/**
 * Calico's etcd v3 path for a key, e.g. `/calico/ipam/v2/assignment/ipv4/block/10.0.0.0-26`.
 * The CIDR in a key must already be in canonical (masked) form.
 */
export function keyToPath(key: DatastoreKey): string {
  switch (key.kind) {
    case 'IPPool':
    case 'IPReservation':
    case 'Node':
    case 'ClusterInformation':
      return `${RESOURCE_ROOT}${RESOURCE_PLURALS[key.kind]}/${key.name}`;
    case 'IPAMConfig':
      return `${IPAM_ROOT}config`;
    case 'IPAMBlock':
      return `${IPAM_ROOT}assignment/ipv${ipVersionOf(key.cidr)}/block/${cidrToSegment(key.cidr)}`;
    case 'BlockAffinity':
      return `${IPAM_ROOT}${key.affinityType}/${key.host}/ipv${ipVersionOf(key.cidr)}/block/${cidrToSegment(key.cidr)}`;
    case 'IPAMHandle':
      return `${IPAM_ROOT}handle/${key.handleId}`;
    case 'IPAMHost':
      return `${IPAM_ROOT}host/${key.host}`;
  }
}

const blockPath = /^\/calico\/ipam\/v2\/assignment\/ipv[46]\/block\/([^/]+)$/;
const affinityPath = /^\/calico\/ipam\/v2\/(host|virtual)\/([^/]+)\/ipv[46]\/block\/([^/]+)$/;
const handlePath = /^\/calico\/ipam\/v2\/handle\/([^/]+)$/;
const hostPath = /^\/calico\/ipam\/v2\/host\/([^/]+)$/;
const resourcePath = /^\/calico\/resources\/v3\/projectcalico\.org\/([a-z]+)\/([^/]+)$/;

/** The key for a Calico etcd path, or undefined for a path that is not one of ours. */
export function pathToKey(path: string): DatastoreKey | undefined {
  if (path === `${IPAM_ROOT}config`) return { kind: 'IPAMConfig' };
  let m = blockPath.exec(path);
  if (m) return { kind: 'IPAMBlock', cidr: segmentToCidr(m[1]!) };
  m = affinityPath.exec(path);
  if (m) {
    return {
      kind: 'BlockAffinity',
      affinityType: m[1] as AffinityType,
      host: m[2]!,
      cidr: segmentToCidr(m[3]!),
    };
  }
  m = handlePath.exec(path);
  if (m) return { kind: 'IPAMHandle', handleId: m[1]! };
  m = hostPath.exec(path);
  if (m) return { kind: 'IPAMHost', host: m[1]! };
  m = resourcePath.exec(path);
  if (m) {
    const kind = (Object.keys(RESOURCE_PLURALS) as ResourceKind[]).find(
      (k) => RESOURCE_PLURALS[k] === m[1],
    );
    if (kind) return { kind, name: m[2]! };
  }
  return undefined;
}

/**
 * The etcd prefixes that hold every key a list may return (a superset: filter with
 * {@link matchesListOptions}). Prefixes end in `/`, so host `node1` never matches `node10`.
 */
export function listPrefixes(options: ListOptions): string[] {
  if (isResourceKind(options.kind)) return [`${RESOURCE_ROOT}${RESOURCE_PLURALS[options.kind]}/`];
  switch (options.kind) {
    case 'IPAMConfig':
      return [`${IPAM_ROOT}config`];
    case 'IPAMHandle':
      return [`${IPAM_ROOT}handle/`];
    case 'IPAMHost':
      return [`${IPAM_ROOT}host/`];
    case 'IPAMBlock': {
      const o = options;
      return [`${IPAM_ROOT}assignment/${o.ipVersion ? `ipv${o.ipVersion}/` : ''}`];
    }
    case 'BlockAffinity': {
      const o = options;
      const types: AffinityType[] = o.affinityType ? [o.affinityType] : ['host', 'virtual'];
      return types.map((t) => {
        if (!o.host) return `${IPAM_ROOT}${t}/`;
        return `${IPAM_ROOT}${t}/${o.host}/${o.ipVersion ? `ipv${o.ipVersion}/block/` : ''}`;
      });
    }
  }
  return [];
}

/** True when `key` is returned by a list with `options`. */
export function matchesListOptions(key: DatastoreKey, options: ListOptions): boolean {
  if (key.kind !== options.kind) return false;
  if (key.kind === 'IPAMBlock') {
    const o = options as ListOptions<'IPAMBlock'>;
    return !o.ipVersion || ipVersionOf(key.cidr) === o.ipVersion;
  }
  if (key.kind === 'BlockAffinity') {
    const o = options as ListOptions<'BlockAffinity'>;
    return (
      (!o.host || o.host === key.host) &&
      (!o.affinityType || o.affinityType === key.affinityType) &&
      (!o.ipVersion || ipVersionOf(key.cidr) === o.ipVersion)
    );
  }
  return true;
}

/** A short human-readable name for a key, for error messages. */
export function describeKey(key: DatastoreKey): string {
  return keyToPath(key);
}
