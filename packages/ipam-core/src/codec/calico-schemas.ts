// The Go structs behind Calico's v3 resources as etcd stores them (json.Marshal of the whole
// object, libcalico-go/lib/backend/model/keys.go SerializeValue), field for field in declaration
// order with their JSON tags. Sources, projectcalico/calico at 87c15906 (2026-08-22), Kubernetes
// apimachinery v0.37 (the version Calico's go.mod pins):
// - metav1.TypeMeta, ObjectMeta, OwnerReference, Condition: apimachinery pkg/apis/meta/v1/types.go
//   (creationTimestamp is `omitempty,omitzero` since Kubernetes 1.33, kubernetes#130989; before,
//   a zero one was written `null`);
// - IPPool, IPPoolSpec, IPPoolStatus: api/pkg/apis/projectcalico/v3/ippool.go;
// - IPReservation: api/pkg/apis/projectcalico/v3/ipreservation.go;
// - ClusterInformation: api/pkg/apis/projectcalico/v3/clusterinfo.go;
// - Node and its parts: libcalico-go/lib/apis/internalapi/node.go (the type registered for
//   `nodes` in libcalico-go/lib/backend/model/resource.go).
import type { GoField, GoType } from './go-struct.js';

const s = (key: string): GoField => ({ key, type: 'string' });
const os = (key: string): GoField => ({ key, type: 'string', omitempty: true });
const strings: GoType = { slice: 'string' };

const ownerReference: GoType = {
  struct: [
    s('apiVersion'),
    s('kind'),
    s('name'),
    s('uid'),
    { key: 'controller', type: { ptr: 'bool' }, omitempty: true },
    { key: 'blockOwnerDeletion', type: { ptr: 'bool' }, omitempty: true },
  ],
};

/** metav1.ObjectMeta. */
export const OBJECT_META: GoType = {
  struct: [
    os('name'),
    os('generateName'),
    os('namespace'),
    os('selfLink'),
    os('uid'),
    os('resourceVersion'),
    { key: 'generation', type: 'int', omitempty: true },
    { key: 'creationTimestamp', type: 'time', omitempty: true, omitzero: true },
    { key: 'deletionTimestamp', type: { ptr: 'time' }, omitempty: true },
    { key: 'deletionGracePeriodSeconds', type: { ptr: 'int' }, omitempty: true },
    { key: 'labels', type: { map: 'string' }, omitempty: true },
    { key: 'annotations', type: { map: 'string' }, omitempty: true },
    { key: 'ownerReferences', type: { slice: ownerReference }, omitempty: true },
    { key: 'finalizers', type: strings, omitempty: true },
    { key: 'managedFields', type: { slice: 'any' }, omitempty: true },
  ],
};

/** metav1.Condition. */
export const CONDITION: GoType = {
  struct: [
    s('type'),
    s('status'),
    { key: 'observedGeneration', type: 'int', omitempty: true },
    { key: 'lastTransitionTime', type: 'time' },
    s('reason'),
    s('message'),
  ],
};

// TypeMeta is embedded inline: `kind` and `apiVersion`, both omitempty, come first.
const resource = (...rest: GoField[]): GoType => ({
  struct: [os('kind'), os('apiVersion'), ...rest],
});

/** v3.IPPool. */
export const IP_POOL: GoType = resource(
  { key: 'metadata', type: OBJECT_META },
  {
    key: 'spec',
    type: {
      struct: [
        s('cidr'),
        os('vxlanMode'),
        os('ipipMode'),
        { key: 'natOutgoing', type: 'bool', omitempty: true },
        { key: 'disabled', type: 'bool', omitempty: true },
        { key: 'disableBGPExport', type: 'bool', omitempty: true },
        { key: 'blockSize', type: 'int', omitempty: true },
        os('nodeSelector'),
        os('namespaceSelector'),
        { key: 'allowedUses', type: strings, omitempty: true },
        { key: 'assignmentMode', type: { ptr: 'string' }, omitempty: true },
      ],
    },
  },
  {
    key: 'status',
    type: {
      ptr: { struct: [{ key: 'conditions', type: { slice: CONDITION }, omitempty: true }] },
    },
    omitempty: true,
  },
);

/** v3.IPReservation. */
export const IP_RESERVATION: GoType = resource(
  { key: 'metadata', type: OBJECT_META },
  { key: 'spec', type: { struct: [{ key: 'reservedCIDRs', type: strings, omitempty: true }] } },
);

/**
 * v3.IPAMConfiguration (api/pkg/apis/projectcalico/v3/ipamconfig.go, with the fields its CRD has
 * gained since: kubeVirtVMAddressPersistence, ipCooldownSeconds). A manifest kind only: the
 * store holds the IPAM config as Calico's backend model.IPAMConfig.
 */
export const IPAM_CONFIGURATION: GoType = resource(
  { key: 'metadata', type: OBJECT_META },
  {
    key: 'spec',
    type: {
      struct: [
        { key: 'strictAffinity', type: 'bool' },
        { key: 'maxBlocksPerHost', type: 'int', omitempty: true },
        { key: 'autoAllocateBlocks', type: 'bool' },
        { key: 'kubeVirtVMAddressPersistence', type: { ptr: 'string' }, omitempty: true },
        { key: 'ipCooldownSeconds', type: { ptr: 'int' }, omitempty: true },
      ],
    },
  },
);

/** v3.ClusterInformation. */
export const CLUSTER_INFORMATION: GoType = resource(
  { key: 'metadata', type: OBJECT_META },
  {
    key: 'spec',
    type: {
      struct: [
        os('clusterGUID'),
        os('clusterType'),
        os('calicoVersion'),
        { key: 'datastoreReady', type: { ptr: 'bool' }, omitempty: true },
        os('variant'),
      ],
    },
  },
);

const nodeSpec: GoType = {
  struct: [
    {
      key: 'bgp',
      type: {
        ptr: {
          struct: [
            // numorstring.ASNumber: a uint32 without a marshaller of its own.
            { key: 'asNumber', type: { ptr: 'any' }, omitempty: true },
            os('ipv4Address'),
            os('ipv6Address'),
            os('ipv4IPIPTunnelAddr'),
            os('routeReflectorClusterID'),
          ],
        },
      },
      omitempty: true,
    },
    os('ipv4VXLANTunnelAddr'),
    os('vxlanTunnelMACAddr'),
    os('ipv6VXLANTunnelAddr'),
    os('vxlanTunnelMACAddrV6'),
    {
      key: 'orchRefs',
      type: { slice: { struct: [os('nodeName'), s('orchestrator')] } },
      omitempty: true,
    },
    {
      key: 'wireguard',
      type: { ptr: { struct: [os('interfaceIPv4Address'), os('interfaceIPv6Address')] } },
      omitempty: true,
    },
    {
      key: 'addresses',
      type: { slice: { struct: [s('address'), os('type')] } },
      omitempty: true,
    },
    {
      key: 'interfaces',
      type: {
        slice: { struct: [os('name'), { key: 'addresses', type: strings, omitempty: true }] },
      },
      omitempty: true,
    },
  ],
};

const nodeStatus: GoType = {
  struct: [
    os('wireguardPublicKey'),
    os('wireguardPublicKeyV6'),
    { key: 'podCIDRs', type: strings, omitempty: true },
  ],
};

/**
 * internalapi.Node. `spec` and `status` are struct values: `omitempty` never drops a struct, so a
 * Node without either is written `"spec":{}` / `"status":{}`.
 */
export const NODE: GoType = resource(
  { key: 'metadata', type: OBJECT_META, omitempty: true },
  { key: 'spec', type: nodeSpec, omitempty: true },
  { key: 'status', type: nodeStatus, omitempty: true },
);
