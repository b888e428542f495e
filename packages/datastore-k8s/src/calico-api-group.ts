// The two API groups Calico keeps its CRDs in on Kubernetes (libcalico-go
// lib/backend/k8s/resources/apigroups.go): crd.projectcalico.org/v1, behind Calico's aggregated
// API server or on its own, and projectcalico.org/v3, the CRDs Calico runs on directly without the
// aggregated API server. Which one a cluster uses is Calico's `UsingV3CRDs`
// (lib/backend/k8s/discovery.go): CALICO_API_GROUP when set, else discovery.
import type { JsonValue } from '@netledger/ipam-core/adapter';
import type { CrdKind } from './crd-kinds.js';

/** A Calico CRD group and version, as `CALICO_API_GROUP` names it. */
export type CalicoApiGroup = 'crd.projectcalico.org/v1' | 'projectcalico.org/v3';

/** Both groups, v1 first (Calico's default). */
export const CALICO_API_GROUPS: readonly CalicoApiGroup[] = [
  'crd.projectcalico.org/v1',
  'projectcalico.org/v3',
];

/** A kind's CRD in one group. */
interface CrdNames {
  /** The CRD's kind, e.g. `IPAMBlock`. */
  readonly crdKind: string;
  readonly plural: string;
}

/** What differs between the groups in how netledger writes Calico's objects. */
export interface CrdGroup {
  /** The objects' `apiVersion`, and the group of the API paths. */
  readonly apiVersion: CalicoApiGroup;
  readonly names: Readonly<Record<CrdKind, CrdNames>>;
  /**
   * Whether the IPAM objects carry `projectcalico.org/metadata`: on v1, Calico's
   * `ConvertCalicoResourceToK8sResource` stores a v3 resource's metadata in that annotation on
   * every write; on v3 the object's own metadata is the resource's and there is none.
   */
  readonly metadataAnnotation: boolean;
  /** A BlockAffinity's `spec.deleted`: the v1 CRD's string `"true"`/`"false"`, v3's boolean. */
  readonly affinityDeleted: (deleted: boolean) => JsonValue;
}

const SAME_NAMES: Readonly<Record<CrdKind, CrdNames>> = {
  IPAMBlock: { crdKind: 'IPAMBlock', plural: 'ipamblocks' },
  BlockAffinity: { crdKind: 'BlockAffinity', plural: 'blockaffinities' },
  IPAMHandle: { crdKind: 'IPAMHandle', plural: 'ipamhandles' },
  IPAMConfig: { crdKind: 'IPAMConfig', plural: 'ipamconfigs' },
  IPPool: { crdKind: 'IPPool', plural: 'ippools' },
  IPReservation: { crdKind: 'IPReservation', plural: 'ipreservations' },
  ClusterInformation: { crdKind: 'ClusterInformation', plural: 'clusterinformations' },
};

const GROUPS: Readonly<Record<CalicoApiGroup, CrdGroup>> = {
  'crd.projectcalico.org/v1': {
    apiVersion: 'crd.projectcalico.org/v1',
    names: SAME_NAMES,
    metadataAnnotation: true,
    affinityDeleted: (deleted) => (deleted ? 'true' : 'false'),
  },
  'projectcalico.org/v3': {
    apiVersion: 'projectcalico.org/v3',
    // v3 has the IPAM config as the IPAMConfiguration resource (ipam_config_v3.go).
    names: {
      ...SAME_NAMES,
      IPAMConfig: { crdKind: 'IPAMConfiguration', plural: 'ipamconfigurations' },
    },
    metadataAnnotation: false,
    affinityDeleted: (deleted) => deleted,
  },
};

/** How objects are written in `apiGroup`. */
export function crdGroup(apiGroup: CalicoApiGroup): CrdGroup {
  return GROUPS[apiGroup];
}

/** `apiGroup` as one of the two groups (any case, as Calico's `strings.EqualFold`), else undefined. */
export function parseCalicoApiGroup(apiGroup: string): CalicoApiGroup | undefined {
  const lower = apiGroup.toLowerCase();
  return CALICO_API_GROUPS.find((g) => g === lower);
}

/**
 * Calico's discovery rule, given the names of the API groups the server serves: projectcalico.org/v3
 * when `projectcalico.org` is served and `crd.projectcalico.org` is not; otherwise (both served:
 * the aggregated API server implements v3 on top of the v1 CRDs; or neither)
 * crd.projectcalico.org/v1.
 */
export function chooseCalicoApiGroup(servedGroups: readonly string[]): CalicoApiGroup {
  const v3 = servedGroups.includes('projectcalico.org');
  const v1 = servedGroups.includes('crd.projectcalico.org');
  return v3 && !v1 ? 'projectcalico.org/v3' : 'crd.projectcalico.org/v1';
}
