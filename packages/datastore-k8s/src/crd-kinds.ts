// Where each netledger kind lives on the API server and how its objects map to keys and values.
import type {
  AllocationBlock,
  BlockAffinity,
  DatastoreKey,
  IpamConfigValue,
  IpamHandle,
  Kind,
  ListOptions,
} from '@netledger/ipam-core';
import type { ValueByKind } from '@netledger/ipam-core/adapter';
import { ipVersionOf, matchesListOptions } from '@netledger/ipam-core/adapter';
import {
  affinityLabelSelector,
  affinityLabels,
  affinityName,
  cidrToName,
  handleName,
} from './calico-names.js';
import type { JsonObject } from './ipam-crd-codec.js';
import {
  BadSpec,
  decodeAffinitySpec,
  decodeBlockSpec,
  decodeConfigSpec,
  decodeHandleSpec,
  encodeAffinitySpec,
  encodeBlockSpec,
  encodeConfigSpec,
  encodeHandleSpec,
} from './ipam-crd-codec.js';
import type { CrdGroup } from './calico-api-group.js';
import type { ResourceKind } from './resource-crd-codec.js';
import { decodeResource, encodeResource } from './resource-crd-codec.js';

/** The name of the IPAMConfig singleton. */
const IPAM_CONFIG_NAME = 'default';

/**
 * The annotation in which Calico's v1 CRD client keeps a v3 resource's metadata
 * (libcalico-go lib/backend/k8s/resources/resources.go, `ConvertCalicoResourceToK8sResource`).
 */
const CALICO_METADATA_ANNOTATION = 'projectcalico.org/metadata';
/**
 * Its value on the IPAM objects: Calico's IPAM clients build metadata holding only the name and
 * resourceVersion, which the conversion removes before `json.Marshal` (creationTimestamp is
 * `omitzero` in the apimachinery Calico pins), so every write leaves `{}`.
 */
const IPAM_METADATA = '{}';

/** The kinds stored as Calico CRDs (Node is the Kubernetes Node; IPAMHost does not exist in KDD). */
export type CrdKind = Exclude<Kind, 'Node' | 'IPAMHost'>;

/** How one CRD kind is written (its names are the group's: {@link CrdGroup.names}). */
export interface CrdKindInfo {
  /** Blocks, affinities and handles are deleted by soft delete (`spec.deleted`) then delete. */
  readonly softDelete: boolean;
  /**
   * The IPAM kinds: their values hold no object metadata, so an update keeps the stored object's
   * labels, annotations, finalizers and owner references. The resources' values carry their own.
   */
  readonly ipam: boolean;
}

/** Each CRD kind. */
export const CRD_KINDS: Readonly<Record<CrdKind, CrdKindInfo>> = {
  IPAMBlock: { softDelete: true, ipam: true },
  BlockAffinity: { softDelete: true, ipam: true },
  IPAMHandle: { softDelete: true, ipam: true },
  IPAMConfig: { softDelete: false, ipam: true },
  IPPool: { softDelete: false, ipam: false },
  IPReservation: { softDelete: false, ipam: false },
  ClusterInformation: { softDelete: false, ipam: false },
};

/** True for the kinds kept as Calico CRDs. */
export function isCrdKind(kind: Kind): kind is CrdKind {
  return kind in CRD_KINDS;
}

/** The API path of a kind's collection in `group`, or of one object. */
export function crdPath(group: CrdGroup, kind: CrdKind, name?: string): string {
  const base = `/apis/${group.apiVersion}/${group.names[kind].plural}`;
  return name === undefined ? base : `${base}/${encodeURIComponent(name)}`;
}

/** The object name of a key, in Calico's encoding. */
export function objectName(key: DatastoreKey): string {
  switch (key.kind) {
    case 'IPAMBlock':
      return cidrToName(key.cidr);
    case 'BlockAffinity':
      return affinityName(key.host, key.cidr);
    case 'IPAMHandle':
      return handleName(key.handleId);
    case 'IPAMConfig':
      return IPAM_CONFIG_NAME;
    case 'IPAMHost':
      return key.host;
    default:
      return key.name;
  }
}

/** `ipamblocks/10-0-0-0-26`: how messages name an object of `group`. */
export function describeObject(group: CrdGroup, key: DatastoreKey): string {
  if (key.kind === 'Node') return `nodes/${key.name}`;
  if (key.kind === 'IPAMHost') return `ipamhosts/${key.host}`;
  return `${group.names[key.kind].plural}/${objectName(key)}`;
}

/**
 * The object body (without resourceVersion) for a value in `group`, with the metadata Calico
 * writes: the affinity labels, and on v1 the IPAM objects' `projectcalico.org/metadata`.
 */
export function encodeCrd<K extends CrdKind>(
  group: CrdGroup,
  key: DatastoreKey<K>,
  value: ValueByKind[K],
): JsonObject {
  const name = objectName(key);
  const head = { apiVersion: group.apiVersion, kind: group.names[key.kind].crdKind };
  const metadata: JsonObject = {
    name,
    ...(group.metadataAnnotation &&
      CRD_KINDS[key.kind].ipam && {
        annotations: { [CALICO_METADATA_ANNOTATION]: IPAM_METADATA },
      }),
  };
  const k = key as DatastoreKey<CrdKind>;
  switch (k.kind) {
    case 'IPAMBlock':
      // The spec's CIDR is the key's, as KDD writes it (IPAMBlockV1toV3).
      return {
        ...head,
        metadata,
        spec: { ...encodeBlockSpec(value as AllocationBlock), cidr: k.cidr },
      };
    case 'BlockAffinity':
      return {
        ...head,
        metadata: { ...metadata, labels: affinityLabels(k.host, k.affinityType, k.cidr) },
        spec: encodeAffinitySpec(k, value as BlockAffinity, group.affinityDeleted),
      };
    case 'IPAMHandle':
      return {
        ...head,
        metadata,
        spec: encodeHandleSpec(k.handleId, value as IpamHandle),
      };
    case 'IPAMConfig':
      return { ...head, metadata, spec: encodeConfigSpec(value as IpamConfigValue) };
    default: {
      const body = encodeResource(k, value as never);
      return { ...head, metadata: body.metadata, spec: body.spec };
    }
  }
}

/** A decoded object: its key and value, or `undefined` for an object netledger does not read. */
export type Decoded = { key: DatastoreKey; value: ValueByKind[Kind] } | undefined;

/**
 * The key and value of an API object of `kind`. Throws `BadSpec` (or ipam-core's `CorruptValue`)
 * for an object that is not Calico's shape.
 */
export function decodeCrd(kind: CrdKind, object: JsonObject): Decoded {
  const meta = object.metadata as JsonObject | undefined;
  const name = typeof meta?.name === 'string' && meta.name !== '' ? meta.name : undefined;
  if (name === undefined) throw new BadSpec('metadata.name is missing');
  switch (kind) {
    case 'IPAMBlock': {
      const spec = object.spec as JsonObject | undefined;
      const cidr = typeof spec?.cidr === 'string' ? spec.cidr : undefined;
      if (cidr === undefined) throw new BadSpec('spec.cidr is missing');
      const key: DatastoreKey<'IPAMBlock'> = { kind, cidr };
      return { key, value: decodeBlockSpec(key, object.spec) };
    }
    case 'BlockAffinity':
      return decodeAffinitySpec(object.spec);
    case 'IPAMHandle':
      return decodeHandleSpec(object.spec, name);
    case 'IPAMConfig':
      // Only the singleton is the IPAM config; other names are ignored, as Calico ignores them.
      if (name !== IPAM_CONFIG_NAME) return undefined;
      return { key: { kind }, value: decodeConfigSpec(object.spec) };
    default: {
      const key = { kind, name } as DatastoreKey<ResourceKind>;
      return { key, value: decodeResource(key, object) };
    }
  }
}

/** Whether a decoded value is soft-deleted (to be filtered, and completed on get). */
export function isSoftDeleted(value: unknown): boolean {
  return (
    typeof value === 'object' && value !== null && (value as { deleted?: unknown }).deleted === true
  );
}

/** The server-side label selector of a list (affinities only), or undefined for none. */
export function listLabelSelector(options: ListOptions): string | undefined {
  if (options.kind !== 'BlockAffinity') return undefined;
  const o = options;
  const selector = affinityLabelSelector({
    ...(o.host !== undefined && { host: o.host }),
    ...(o.affinityType !== undefined && { affinityType: o.affinityType }),
    ...(o.ipVersion !== undefined && { ipVersion: o.ipVersion }),
  });
  return selector || undefined;
}

/** The client-side filter after the server's (exact host, type, version; block versions). */
export function matchesList(key: DatastoreKey, options: ListOptions): boolean {
  if (key.kind === 'IPAMBlock' && (options as ListOptions<'IPAMBlock'>).ipVersion) {
    return ipVersionOf(key.cidr) === (options as ListOptions<'IPAMBlock'>).ipVersion;
  }
  return matchesListOptions(key, options);
}
