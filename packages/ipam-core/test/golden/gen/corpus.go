package main

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The corpus: one small Calico datastore (values/) and what it holds after netledger's assign
// and release (after/). Every input is fixed here; README.md says what each value stands for.

// entry is one etcd value: the file holding its bytes, its key and the Go value stored there.
type entry struct {
	file  string
	key   string
	value any
}

var (
	// created is when the resources were created and the blocks claimed. metav1.Time writes whole
	// seconds, so the .89 s is dropped (the netledger test that creates the same resources uses
	// this instant too).
	created = time.Date(2026, 3, 4, 5, 6, 7, 890_000_000, time.UTC)
	// claimed is created as a block's fields hold it once read back from the store.
	claimed = created.Truncate(time.Second)
	// allocatedAt is when the CNI plugin assigned web-0's address: a nanosecond part, as
	// time.Now() has one.
	allocatedAt = time.Date(2026, 3, 4, 5, 6, 7, 123_456_789, time.UTC)
	// now is when netledger's steps run (after/): more than the 30 s cooldown after claimed.
	now = time.Date(2026, 3, 4, 5, 10, 0, 0, time.UTC)
	// baseSequence is the sequence number newBlock gives a block created at claimed.
	baseSequence = uint64(claimed.UnixNano())
)

// config is the IPAM config: a 30 s cooldown.
var config = ipamConfig{
	StrictAffinity:               true,
	AutoAllocateBlocks:           true,
	MaxBlocksPerHost:             4,
	KubeVirtVMAddressPersistence: ptr("Enabled"),
	IPCooldownSeconds:            30,
}

func objectMeta(name, uid string, labels map[string]string) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name:              name,
		UID:               types.UID(uid),
		CreationTimestamp: metav1.NewTime(created),
		Labels:            labels,
	}
}

func typeMeta(kind string) metav1.TypeMeta {
	return metav1.TypeMeta{Kind: kind, APIVersion: groupVersion}
}

// The uids are the ones netledger's test draws from its counter random source.

// poolA is created by clientv3 (defaults from clientv3/ippool.go validateAndSetDefaults) and
// marked allocatable by kube-controllers' pool controller.
func poolA() *ipPool {
	meta := objectMeta("pool-a", "00254a6f-94b9-4e03-a84d-7297bce1062b",
		map[string]string{"zone": "east", "team": "netops"})
	// Go's HTML-safe escaping of < > & (a label value may not hold them; an annotation may).
	meta.Annotations = map[string]string{"note": "net<&>ops"}
	return &ipPool{
		TypeMeta:   typeMeta("IPPool"),
		ObjectMeta: meta,
		Spec: ipPoolSpec{
			CIDR:           "10.1.0.0/16",
			VXLANMode:      "Never",
			IPIPMode:       "Never",
			NATOutgoing:    true,
			BlockSize:      29,
			NodeSelector:   "all()",
			AllowedUses:    []string{"Workload", "Tunnel"},
			AssignmentMode: ptr("Automatic"),
		},
		Status: &ipPoolStatus{Conditions: []metav1.Condition{{
			Type:               "Allocatable",
			Status:             metav1.ConditionTrue,
			LastTransitionTime: metav1.NewTime(created),
			Reason:             "OK",
			Message:            "IPPool is available for IP allocation.",
		}}},
	}
}

// poolV6 is created by calicoctl, with no status; its selector has characters Go escapes.
func poolV6() *ipPool {
	return &ipPool{
		TypeMeta:   typeMeta("IPPool"),
		ObjectMeta: objectMeta("pool-v6", "3b9e5c1a-7d2f-4e8b-9a6c-0f1e2d3c4b5a", nil),
		Spec: ipPoolSpec{
			CIDR:           "fd00:10::/64",
			VXLANMode:      "Never",
			IPIPMode:       "Never",
			BlockSize:      122,
			NodeSelector:   `kubernetes.io/os == 'linux' && zone != "west"`,
			AllowedUses:    []string{"Workload", "Tunnel"},
			AssignmentMode: ptr("Automatic"),
		},
	}
}

func reservation() *ipReservation {
	return &ipReservation{
		TypeMeta:   typeMeta("IPReservation"),
		ObjectMeta: objectMeta("keep-out", "50759abf-e409-4e53-b89d-c2e70c31567b", nil),
		Spec: ipReservationSpec{
			ReservedCIDRs: []string{"10.1.0.48/30", "10.1.0.77", "fd00:10::/126"},
		},
	}
}

func nodeN1() *node {
	return &node{
		TypeMeta:   typeMeta("Node"),
		ObjectMeta: objectMeta("n1", "a0c5ea0f-3459-4ea3-88ed-12375c81a6cb", nil),
	}
}

// nodeN2 is as calico/node writes it.
func nodeN2() *node {
	return &node{
		TypeMeta: typeMeta("Node"),
		ObjectMeta: objectMeta("n2", "f0153a5f-84a9-4ef3-983d-6287acd1f61b",
			map[string]string{"kubernetes.io/os": "linux", "kubernetes.io/hostname": "n2"}),
		Spec: nodeSpec{
			BGP: &nodeBGPSpec{
				ASNumber:           ptr[uint32](64512),
				IPv4Address:        "192.168.0.2/24",
				IPv4IPIPTunnelAddr: "10.1.0.1",
			},
			OrchRefs: []orchRef{{NodeName: "n2", Orchestrator: "k8s"}},
			Addresses: []nodeAddress{
				{Address: "192.168.0.2/24", Type: "CalicoNodeIP"},
				{Address: "192.168.0.2", Type: "InternalIP"},
			},
		},
		Status: nodeStatus{PodCIDRs: []string{"10.244.2.0/24"}},
	}
}

// blockN1 is written by Calico >= v3.32 and has every kind of entry: web-0's pod (with the
// CNI plugin's timestamp attribute), a KubeVirt VM with an alternate owner, and an address in
// cooldown since created.
func blockN1() *allocationBlock {
	return &allocationBlock{
		CIDR:              ipNet{mustCIDR("10.1.0.0/29")},
		Affinity:          ptr("host:n1"),
		AffinityClaimTime: ptr(metav1.NewTime(claimed)),
		Allocations:       []*int{ptr(0), ptr(0), ptr(1), ptr(2), nil, nil, nil, nil},
		Unallocated:       []int{6, 7, 4, 5},
		Attributes: []attribute{
			allocationAttribute{
				HandleID: ptr("k8s-pod-network.0a1b2c"),
				ActiveOwnerAttrs: map[string]string{
					"namespace": "default", "node": "n1", "pod": "web-0",
					// cni-plugin/pkg/ipamplugin/ipam_plugin.go: time.Now().UTC().String().
					"timestamp": allocatedAt.UTC().String(),
				},
			},
			allocationAttribute{
				HandleID: ptr("vm-uid.7e57"),
				ActiveOwnerAttrs: map[string]string{
					"namespace": "vms", "node": "n1", "pod": "virt-launcher-a",
					"vm-uid": "7e57", "vmi-name": "a",
				},
				AlternateOwnerAttrs: map[string]string{
					"namespace": "vms", "node": "n2", "pod": "virt-launcher-b",
				},
			},
			allocationAttribute{ReleasedAt: ptr(metav1.NewTime(claimed))},
		},
		SequenceNumber: baseSequence + 7,
		SequenceNumberForAllocation: map[string]uint64{
			"0": baseSequence + 1, "1": baseSequence + 1, "2": baseSequence + 4, "3": baseSequence + 6,
		},
		HostAffinity: ptr("n1"),
	}
}

// blockLegacyKeys has keys the current model does not have: `alternate` (#11894 to #12258) and
// `strictAffinity`.
func blockLegacyKeys() *blockWithStrictAffinity {
	return &blockWithStrictAffinity{allocationBlock: allocationBlock{
		CIDR:        ipNet{mustCIDR("10.1.0.8/29")},
		Affinity:    ptr("host:n2"),
		Allocations: []*int{nil, ptr(0), nil, nil, nil, nil, nil, nil},
		Unallocated: []int{0, 2, 3, 4, 5, 6, 7},
		Attributes: []attribute{alternateAllocationAttribute{
			HandleID:            ptr("legacy-handle"),
			ActiveOwnerAttrs:    map[string]string{"node": "n2"},
			AlternateOwnerAttrs: map[string]string{"node": "n1"},
		}},
		SequenceNumber:              baseSequence + 2,
		SequenceNumberForAllocation: map[string]uint64{"1": baseSequence + 1},
	}}
}

// blockLegacy is written by Calico <= v3.31 (attributes before #11894) from a block older than
// sequence numbers (#5613): 0 and a nil map.
func blockLegacy() *allocationBlock {
	return &allocationBlock{
		CIDR:        ipNet{mustCIDR("10.1.0.16/29")},
		Affinity:    ptr("host:n2"),
		Allocations: []*int{ptr(0), ptr(1), nil, nil, nil, nil, nil, nil},
		Unallocated: []int{2, 3, 4, 5, 6, 7},
		Attributes: []attribute{
			legacyAllocationAttribute{},
			legacyAllocationAttribute{AttrPrimary: ptr("legacy-handle")},
		},
	}
}

// handles counts each handle's addresses per block, as Calico keeps the handles in step with the
// blocks (addresses in cooldown count for no handle).
func handles(blocks ...*allocationBlock) map[string]*ipamHandle {
	out := map[string]*ipamHandle{}
	for _, b := range blocks {
		for _, index := range b.Allocations {
			if index == nil {
				continue
			}
			a := b.Attributes[*index].fields()
			if a.HandleID == nil || a.ReleasedAt != nil {
				continue
			}
			h, ok := out[*a.HandleID]
			if !ok {
				h = &ipamHandle{HandleID: *a.HandleID, Block: map[string]int{}}
				out[*a.HandleID] = h
			}
			h.incrementBlock(b.CIDR, 1)
		}
	}
	return out
}

// values is the datastore Calico wrote, in the order of corpus.json.
func values() []entry {
	n1, legacyKeys, legacy := blockN1(), blockLegacyKeys(), blockLegacy()
	noAffinity := newBlock("10.1.0.24/29", claimed)
	h := handles(n1, &legacyKeys.allocationBlock, legacy)
	if len(h) != 3 {
		panic("the blocks should name three handles")
	}
	return []entry{
		{"ippool.txt", resourceKey("ippools", "pool-a"), poolA()},
		{"ippool-calicoctl.txt", resourceKey("ippools", "pool-v6"), poolV6()},
		{"ipreservation.txt", resourceKey("ipreservations", "keep-out"), reservation()},
		{"node-empty.txt", resourceKey("nodes", "n1"), nodeN1()},
		{"node.txt", resourceKey("nodes", "n2"), nodeN2()},
		{"ipamconfig.txt", ipamConfigKey, config},
		{"block.txt", blockKey(n1.CIDR), n1},
		{"block-legacy-keys.txt", blockKey(legacyKeys.CIDR), legacyKeys},
		{"block-legacy.txt", blockKey(legacy.CIDR), legacy},
		{"block-no-affinity.txt", blockKey(noAffinity.CIDR), noAffinity},
		{"affinity-confirmed.txt", affinityKey("n1", n1.CIDR), blockAffinity{State: stateConfirmed}},
		// Calico before affinity states, and before that with no value at all (model.BlockAffinityKey
		// parseValue reads both as {}).
		{"affinity-legacy-object.txt", affinityKey("n2", legacyKeys.CIDR), statelessBlockAffinity{}},
		{"affinity-legacy-empty.txt", affinityKey("n2", legacy.CIDR), rawString("")},
		// Claims in flight for blocks not written yet.
		{"affinity-pending.txt", affinityKey("n1", ipNet{mustCIDR("10.1.0.32/29")}), blockAffinity{State: statePending}},
		{"affinity-pendingDeletion.txt", affinityKey("n1", ipNet{mustCIDR("10.1.0.40/29")}), blockAffinity{State: statePendingDeletion}},
		{"handle-pod.txt", handleKey("k8s-pod-network.0a1b2c"), h["k8s-pod-network.0a1b2c"]},
		{"handle-vm.txt", handleKey("vm-uid.7e57"), h["vm-uid.7e57"]},
		{"handle-legacy.txt", handleKey("legacy-handle"), h["legacy-handle"]},
	}
}

// after is what the datastore holds after netledger's steps (README.md, after/), each step done
// on the structs as Calico does it.
func after() []entry {
	// `ipam assign --ip 10.1.0.18 --node n2 --handle h-new --attr ...` into the legacy block. The
	// legacy entries it does not touch stay in the struct they were written from: netledger's rule
	// (README.md). Calico >= v3.32 would hold them as allocationAttribute and write them as {}.
	legacy := blockLegacy()
	legacy.read(config, now)
	legacy.assign("10.1.0.18", "h-new", map[string]string{"namespace": "default", "node": "n2", "pod": "p-new"})
	hNew := &ipamHandle{HandleID: "h-new", Block: map[string]int{}}
	hNew.incrementBlock(legacy.CIDR, 1)
	legacy.written()

	// `ipam release --ip 10.1.0.2` (the VM's address) from block.txt at now.
	n1 := blockN1()
	n1.read(config, now)
	vm := handles(blockN1())[n1.release("10.1.0.2", config, now)]
	vm.decrementBlock(n1.CIDR, 1)
	if !vm.empty() {
		panic("the VM's handle should be left with no address, and deleted")
	}
	n1.written()

	return []entry{
		{"block-legacy.assigned.txt", blockKey(legacy.CIDR), legacy},
		{"handle-h-new.txt", handleKey("h-new"), hNew},
		{"block.released.txt", blockKey(n1.CIDR), n1},
	}
}

func ptr[T any](v T) *T { return &v }
