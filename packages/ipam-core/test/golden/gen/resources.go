package main

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The v3 resources Calico stores under /calico/resources/v3/projectcalico.org/. Each struct
// declares the fields of the Calico type it is named after, in the same order and with the same
// json tags, at projectcalico/calico 87c15906f20c4ca1fda55af92295e7678b0cc0b2. The metadata types
// are apimachinery's own. The stored value is json.Marshal of the whole object after
// libcalico-go/lib/clientv3/resources.go resourceToKVPair cleared resourceVersion.

const groupVersion = "projectcalico.org/v3"

// ipPool is IPPool (api/pkg/apis/projectcalico/v3/ippool.go).
type ipPool struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              ipPoolSpec    `json:"spec"`
	Status            *ipPoolStatus `json:"status,omitempty"`
}

// ipPoolStatus is IPPoolStatus (ippool.go).
type ipPoolStatus struct {
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// ipPoolSpec is IPPoolSpec (ippool.go). VXLANMode, IPIPMode, IPPoolAllowedUse and AssignmentMode
// are named string types there, which encoding/json writes as plain strings.
type ipPoolSpec struct {
	CIDR              string   `json:"cidr"`
	VXLANMode         string   `json:"vxlanMode,omitempty"`
	IPIPMode          string   `json:"ipipMode,omitempty"`
	NATOutgoing       bool     `json:"natOutgoing,omitempty"`
	Disabled          bool     `json:"disabled,omitempty"`
	DisableBGPExport  bool     `json:"disableBGPExport,omitempty"`
	BlockSize         int      `json:"blockSize,omitempty"`
	NodeSelector      string   `json:"nodeSelector,omitempty"`
	NamespaceSelector string   `json:"namespaceSelector,omitempty"`
	AllowedUses       []string `json:"allowedUses,omitempty"`
	AssignmentMode    *string  `json:"assignmentMode,omitempty"`
}

// ipReservation is IPReservation (api/pkg/apis/projectcalico/v3/ipreservation.go).
type ipReservation struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              ipReservationSpec `json:"spec"`
}

// ipReservationSpec is IPReservationSpec (ipreservation.go).
type ipReservationSpec struct {
	ReservedCIDRs []string `json:"reservedCIDRs,omitempty"`
}

// node is the Node that libcalico-go/lib/backend/model/resource.go registers for `nodes`
// (libcalico-go/lib/apis/internalapi/node.go). omitempty never drops a struct, so an empty spec
// and status are written as {}.
type node struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              nodeSpec   `json:"spec,omitempty"`
	Status            nodeStatus `json:"status,omitempty"`
}

// nodeSpec is NodeSpec (node.go).
type nodeSpec struct {
	BGP                  *nodeBGPSpec       `json:"bgp,omitempty"`
	IPv4VXLANTunnelAddr  string             `json:"ipv4VXLANTunnelAddr,omitempty"`
	VXLANTunnelMACAddr   string             `json:"vxlanTunnelMACAddr,omitempty"`
	IPv6VXLANTunnelAddr  string             `json:"ipv6VXLANTunnelAddr,omitempty"`
	VXLANTunnelMACAddrV6 string             `json:"vxlanTunnelMACAddrV6,omitempty"`
	OrchRefs             []orchRef          `json:"orchRefs,omitempty"`
	Wireguard            *nodeWireguardSpec `json:"wireguard,omitempty"`
	Addresses            []nodeAddress      `json:"addresses,omitempty"`
	Interfaces           []nodeInterface    `json:"interfaces,omitempty"`
}

// nodeAddress is NodeAddress (node.go).
type nodeAddress struct {
	Address string `json:"address"`
	Type    string `json:"type,omitempty"`
}

// nodeInterface is NodeInterface (node.go).
type nodeInterface struct {
	Name      string   `json:"name,omitempty"`
	Addresses []string `json:"addresses,omitempty"`
}

// nodeStatus is NodeStatus (node.go).
type nodeStatus struct {
	WireguardPublicKey   string   `json:"wireguardPublicKey,omitempty"`
	WireguardPublicKeyV6 string   `json:"wireguardPublicKeyV6,omitempty"`
	PodCIDRs             []string `json:"podCIDRs,omitempty"`
}

// orchRef is OrchRef (node.go).
type orchRef struct {
	NodeName     string `json:"nodeName,omitempty"`
	Orchestrator string `json:"orchestrator"`
}

// nodeBGPSpec is NodeBGPSpec (node.go); ASNumber is api/pkg/lib/numorstring.ASNumber, a uint32
// without a MarshalJSON of its own.
type nodeBGPSpec struct {
	ASNumber                *uint32 `json:"asNumber,omitempty"`
	IPv4Address             string  `json:"ipv4Address,omitempty"`
	IPv6Address             string  `json:"ipv6Address,omitempty"`
	IPv4IPIPTunnelAddr      string  `json:"ipv4IPIPTunnelAddr,omitempty"`
	RouteReflectorClusterID string  `json:"routeReflectorClusterID,omitempty"`
}

// nodeWireguardSpec is NodeWireguardSpec (node.go).
type nodeWireguardSpec struct {
	InterfaceIPv4Address string `json:"interfaceIPv4Address,omitempty"`
	InterfaceIPv6Address string `json:"interfaceIPv6Address,omitempty"`
}
