package main

import (
	"fmt"
	"math/big"
	"net"
	"reflect"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The IPAM steps that produce after/, done on this program's structs the way libcalico-go/lib/ipam
// does them at projectcalico/calico 87c15906f20c4ca1fda55af92295e7678b0cc0b2 (ipam_block.go,
// ipam_handle.go, ipam_block_reader_writer.go). Only the paths the corpus takes are kept: a step
// the corpus does not expect panics instead of deciding.

// newBlock is ipam_block.go newBlock without host reservations: every ordinal free in order, no
// affinity and no attributes (both null), an empty sequence-number map and a sequence number
// taken from the clock.
func newBlock(cidr string, now time.Time) *allocationBlock {
	n := ipNet{mustCIDR(cidr)}
	ones, bits := n.Mask.Size()
	size := 1 << (bits - ones)
	b := &allocationBlock{
		CIDR:                        n,
		Allocations:                 make([]*int, size),
		Unallocated:                 make([]int, size),
		SequenceNumberForAllocation: map[string]uint64{},
		SequenceNumber:              uint64(now.UnixNano()),
	}
	for i := range size {
		b.Unallocated[i] = i
	}
	return b
}

// read is ipam_block.go blockFromBackend: Calico garbage-collects every block it reads.
func (b *allocationBlock) read(cfg ipamConfig, now time.Time) {
	b.garbageCollect(cfg.IPCooldownSeconds, now)
}

// written is ipam_block_reader_writer.go updateBlock: every write adds one to the sequence number.
func (b *allocationBlock) written() { b.SequenceNumber++ }

// assign is ipam_block.go assign of a free address: the ordinal gets the block's sequence number
// (a nil map becomes a map), points at an equal attribute or a new one appended, and leaves the
// free list.
func (b *allocationBlock) assign(ip string, handleID string, attrs map[string]string) {
	ordinal := b.ordinal(ip)
	b.setSequenceNumberForOrdinal(ordinal)
	if b.Allocations[ordinal] != nil {
		panic(fmt.Sprintf("%s is already assigned in %s", ip, b.CIDR.String()))
	}
	index := b.findOrAddAttribute(allocationAttribute{HandleID: &handleID, ActiveOwnerAttrs: attrs})
	b.Allocations[ordinal] = &index
	if i := slices.Index(b.Unallocated, ordinal); i >= 0 {
		b.Unallocated = slices.Delete(b.Unallocated, i, i+1)
	}
}

// release is ipam_block.go release of one allocated address, with no sequence number or handle
// to compare: the ordinal points at a new cooldown attribute released now and gets the block's
// sequence number, then the block is garbage-collected. It returns the handle the address had.
func (b *allocationBlock) release(ip string, cfg ipamConfig, now time.Time) string {
	ordinal := b.ordinal(ip)
	index := b.Allocations[ordinal]
	if index == nil || b.Attributes[*index].fields().ReleasedAt != nil {
		panic(fmt.Sprintf("%s is not allocated in %s", ip, b.CIDR.String()))
	}
	handle := b.Attributes[*index].fields().HandleID
	if handle == nil {
		panic(fmt.Sprintf("%s has no handle in %s", ip, b.CIDR.String()))
	}
	releasedAt := metav1.NewTime(now)
	cooldown := len(b.Attributes)
	b.Attributes = append(b.Attributes, allocationAttribute{ReleasedAt: &releasedAt})
	b.Allocations[ordinal] = &cooldown
	b.setSequenceNumberForOrdinal(ordinal)
	b.garbageCollect(cfg.IPCooldownSeconds, now)
	return *handle
}

// garbageCollect is ipam_block.go garbageCollect: an ordinal whose cooldown attribute was
// released more than the cooldown before now goes to the end of the free list and loses its
// sequence number; attributes nothing points at any more are dropped and the indexes renumbered.
func (b *allocationBlock) garbageCollect(cooldownSeconds int, now time.Time) {
	before := metav1.NewTime(now.Add(-time.Duration(cooldownSeconds) * time.Second))
	used := map[int]bool{}
	for ordinal, index := range b.Allocations {
		if index == nil {
			continue
		}
		releasedAt := b.Attributes[*index].fields().ReleasedAt
		if releasedAt != nil && (cooldownSeconds < 0 || releasedAt.Before(&before)) {
			b.Allocations[ordinal] = nil
			b.Unallocated = append(b.Unallocated, ordinal)
			delete(b.SequenceNumberForAllocation, fmt.Sprint(ordinal))
		} else {
			used[*index] = true
		}
	}
	renumbered := make([]*int, len(b.Attributes))
	kept := []attribute{}
	for i, a := range b.Attributes {
		if used[i] {
			renumbered[i] = new(len(kept))
			kept = append(kept, a)
		}
	}
	if len(kept) == len(b.Attributes) {
		return
	}
	b.Attributes = kept
	for ordinal, index := range b.Allocations {
		if index != nil {
			b.Allocations[ordinal] = renumbered[*index]
		}
	}
}

// findOrAddAttribute is ipam_block.go findOrAddAttribute: the index of an attribute equal to a
// (as the current model reads it), or of a appended at the end.
func (b *allocationBlock) findOrAddAttribute(a allocationAttribute) int {
	for i, existing := range b.Attributes {
		if reflect.DeepEqual(existing.fields(), a) {
			return i
		}
	}
	b.Attributes = append(b.Attributes, a)
	return len(b.Attributes) - 1
}

// setSequenceNumberForOrdinal is model.AllocationBlock.SetSequenceNumberForOrdinal.
func (b *allocationBlock) setSequenceNumberForOrdinal(ordinal int) {
	if b.SequenceNumberForAllocation == nil {
		b.SequenceNumberForAllocation = map[string]uint64{}
	}
	b.SequenceNumberForAllocation[fmt.Sprint(ordinal)] = b.SequenceNumber
}

// ordinal is model.AllocationBlock.IPToOrdinal: how far ip lies into the block.
func (b *allocationBlock) ordinal(ip string) int {
	addr := net.ParseIP(ip)
	if addr == nil || !b.CIDR.Contains(addr) {
		panic(fmt.Sprintf("%s is not in %s", ip, b.CIDR.String()))
	}
	offset := new(big.Int).Sub(new(big.Int).SetBytes(addr.To16()), new(big.Int).SetBytes(b.CIDR.IP.To16()))
	return int(offset.Int64())
}

// incrementBlock is ipam_handle.go incrementBlock: the handle counts n more addresses in block.
func (h *ipamHandle) incrementBlock(block ipNet, n int) {
	h.Block[block.String()] += n
}

// decrementBlock is ipam_handle.go decrementBlock: the handle counts n fewer addresses in block,
// and forgets the block at zero. Calico deletes a handle left with no block (empty).
func (h *ipamHandle) decrementBlock(block ipNet, n int) {
	left := h.Block[block.String()] - n
	if left < 0 {
		panic(fmt.Sprintf("handle %s has fewer than %d addresses in %s", h.HandleID, n, block.String()))
	}
	if left == 0 {
		delete(h.Block, block.String())
	} else {
		h.Block[block.String()] = left
	}
}

// empty is ipam_handle.go empty: a handle with no block left is deleted.
func (h *ipamHandle) empty() bool { return len(h.Block) == 0 }

// mustCIDR parses a canonical CIDR, keeping its own address (as libcalico-go's ParseCIDR does).
func mustCIDR(cidr string) net.IPNet {
	ip, n, err := net.ParseCIDR(cidr)
	if err != nil || !ip.Equal(n.IP) {
		panic(fmt.Sprintf("%q is not a canonical CIDR", cidr))
	}
	if v4 := ip.To4(); v4 != nil {
		ip = v4
	}
	return net.IPNet{IP: ip, Mask: n.Mask}
}
