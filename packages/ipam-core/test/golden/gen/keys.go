package main

import (
	"encoding/json"
	"fmt"
	"strings"
)

// The etcd keys of the values, as the defaultPath methods of libcalico-go/lib/backend/model
// build them (block.go, block_affinity.go, ipam_handle.go, ipam_config.go, resource.go).

func blockKey(cidr ipNet) string {
	return fmt.Sprintf("/calico/ipam/v2/assignment/ipv%d/block/%s", version(cidr), keyCIDR(cidr))
}

func affinityKey(host string, cidr ipNet) string {
	return fmt.Sprintf("/calico/ipam/v2/host/%s/ipv%d/block/%s", host, version(cidr), keyCIDR(cidr))
}

func handleKey(id string) string { return "/calico/ipam/v2/handle/" + id }

const ipamConfigKey = "/calico/ipam/v2/config"

func resourceKey(plural, name string) string {
	return fmt.Sprintf("/calico/resources/v3/projectcalico.org/%s/%s", plural, name)
}

func keyCIDR(cidr ipNet) string { return strings.Replace(cidr.String(), "/", "-", 1) }

func version(cidr ipNet) int {
	if cidr.IP.To4() != nil {
		return 4
	}
	return 6
}

// rawString is model.rawString: model.SerializeValue stores such a value's bytes as they are.
type rawString string

// serializeValue is model.SerializeValue (keys.go) for the values of this corpus.
func serializeValue(value any) []byte {
	if raw, ok := value.(rawString); ok {
		return []byte(raw)
	}
	bytes, err := json.Marshal(value)
	if err != nil {
		panic(err)
	}
	return bytes
}
