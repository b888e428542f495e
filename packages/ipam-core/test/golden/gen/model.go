package main

import (
	"encoding/json"
	"net"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The IPAM values Calico stores under /calico/ipam/v2/. Each struct declares the fields of the
// Calico type it is named after, in the same order and with the same json tags, at
// projectcalico/calico 87c15906f20c4ca1fda55af92295e7678b0cc0b2; model.SerializeValue
// (libcalico-go/lib/backend/model/keys.go) stores a value as json.Marshal of it.

// ipNet is libcalico-go/lib/net.IPNet: a net.IPNet whose MarshalJSON writes its String().
type ipNet struct{ net.IPNet }

func (n ipNet) MarshalJSON() ([]byte, error) { return json.Marshal(n.String()) }

// allocationBlock is model.AllocationBlock (libcalico-go/lib/backend/model/block.go). Its field
// list is the same from Calico v3.22 (#5613, sequence numbers) to the cited commit; only the
// attribute entries changed shape (see attribute).
type allocationBlock struct {
	CIDR                        ipNet             `json:"cidr"`
	Affinity                    *string           `json:"affinity"`
	AffinityClaimTime           *metav1.Time      `json:"affinity_claim_time,omitempty"`
	Allocations                 []*int            `json:"allocations"`
	Unallocated                 []int             `json:"unallocated"`
	Attributes                  []attribute       `json:"attributes"`
	SequenceNumber              uint64            `json:"sequenceNumber"`
	SequenceNumberForAllocation map[string]uint64 `json:"sequenceNumberForAllocation"`
	Deleted                     bool              `json:"deleted"`
	HostAffinity                *string           `json:"hostAffinity,omitempty"`
}

// blockWithStrictAffinity is a block carrying the deprecated `strictAffinity` field after
// `deleted`, where api/pkg/apis/projectcalico/v3/ipamblocks.go (IPAMBlockSpec,
// DeprecatedStrictAffinity, `json:"strictAffinity"`) declares it. No Calico version writes this
// exact struct to etcd: the value gives a reader a key its model does not have.
type blockWithStrictAffinity struct {
	allocationBlock
	StrictAffinity bool `json:"strictAffinity"`
}

// attribute is one entry of a block's attribute list, held in the struct of the Calico version
// that wrote it. encoding/json writes an interface value as the value it holds, so a list of
// allocationAttribute is written exactly as Calico's []model.AllocationAttribute is.
type attribute interface {
	// fields is the entry as the current model reads it.
	fields() allocationAttribute
}

// allocationAttribute is model.AllocationAttribute at the cited commit (after #12258).
type allocationAttribute struct {
	HandleID            *string           `json:"handle_id,omitempty"`
	ActiveOwnerAttrs    map[string]string `json:"secondary,omitempty"`
	AlternateOwnerAttrs map[string]string `json:"alternateOwnerAttrs,omitempty"`
	ReleasedAt          *metav1.Time      `json:"releasedAt,omitempty"`
}

func (a allocationAttribute) fields() allocationAttribute { return a }

// legacyAllocationAttribute is model.AllocationAttribute before #11894 (Calico <= v3.31): no
// omitempty, so an unset handle or attribute map is written as null.
type legacyAllocationAttribute struct {
	AttrPrimary   *string           `json:"handle_id"`
	AttrSecondary map[string]string `json:"secondary"`
}

func (a legacyAllocationAttribute) fields() allocationAttribute {
	return allocationAttribute{HandleID: a.AttrPrimary, ActiveOwnerAttrs: a.AttrSecondary}
}

// alternateAllocationAttribute is model.AllocationAttribute between #11894 and #12258, which
// named the alternate owner `alternate`.
type alternateAllocationAttribute struct {
	HandleID            *string           `json:"handle_id,omitempty"`
	ActiveOwnerAttrs    map[string]string `json:"secondary,omitempty"`
	AlternateOwnerAttrs map[string]string `json:"alternate,omitempty"`
}

func (a alternateAllocationAttribute) fields() allocationAttribute {
	return allocationAttribute{
		HandleID:            a.HandleID,
		ActiveOwnerAttrs:    a.ActiveOwnerAttrs,
		AlternateOwnerAttrs: a.AlternateOwnerAttrs,
	}
}

// blockAffinityState is model.BlockAffinityState (block_affinity.go).
type blockAffinityState string

const (
	stateConfirmed       blockAffinityState = "confirmed"
	statePending         blockAffinityState = "pending"
	statePendingDeletion blockAffinityState = "pendingDeletion"
)

// blockAffinity is model.BlockAffinity (block_affinity.go).
type blockAffinity struct {
	State   blockAffinityState `json:"state"`
	Deleted bool               `json:"deleted"`
}

// statelessBlockAffinity is model.BlockAffinity in projectcalico/libcalico-go before affinity
// states: a struct without fields, written as {}.
type statelessBlockAffinity struct{}

// ipamHandle is model.IPAMHandle (ipam_handle.go); the ID is the key, not part of the value.
type ipamHandle struct {
	HandleID string         `json:"-"`
	Block    map[string]int `json:"block"`
	Deleted  bool           `json:"deleted"`
}

// ipamConfig is model.IPAMConfig (ipam_config.go).
type ipamConfig struct {
	StrictAffinity               bool    `json:"strict_affinity,omitempty"`
	AutoAllocateBlocks           bool    `json:"auto_allocate_blocks,omitempty"`
	MaxBlocksPerHost             int     `json:"maxBlocksPerHost,omitempty"`
	KubeVirtVMAddressPersistence *string `json:"kubeVirtVMAddressPersistence,omitempty"`
	IPCooldownSeconds            int     `json:"ipCooldownSeconds,omitempty"`
}
