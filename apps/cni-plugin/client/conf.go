package main

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// What the client reads of the network config: where the agent listens and how long to wait.
type clientConf struct {
	cniVersion     string
	agentSocket    string
	connectTimeout time.Duration
	answerTimeout  time.Duration
	// A key the client cannot use (the Node.js side reports it the plugin's way, when installed).
	err *cniError
}

// The defaults and bounds the Node.js side applies to the same keys (packages/cni/src/net-conf.ts).
const (
	defaultAgentSocket = "/run/netledger/node.sock"
	// A unix socket connects at once or not at all; a full backlog (an agent that stopped
	// accepting) is the case this bounds.
	defaultConnectTimeout = 2 * time.Second
	// Well under what a runtime gives one CNI call (kubelet and containerd: a few minutes).
	defaultAnswerTimeout = 60 * time.Second
	maxConnectSeconds    = 60
	maxAnswerSeconds     = 600
)

// readClientConf reads agent_socket, agent_connect_timeout and agent_answer_timeout (whole
// seconds), each from the ipam object first and then from the top level, with the plugin's rules
// and messages. A config that is not JSON gets the defaults: the agent (or the fallback) then
// refuses it with the plugin's own error.
func readClientConf(input []byte) clientConf {
	c := clientConf{
		agentSocket:    defaultAgentSocket,
		connectTimeout: defaultConnectTimeout,
		answerTimeout:  defaultAnswerTimeout,
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(input, &top) != nil {
		return c
	}
	var version string
	if json.Unmarshal(top["cniVersion"], &version) == nil {
		c.cniVersion = version
	}
	var ipam map[string]json.RawMessage
	_ = json.Unmarshal(top["ipam"], &ipam)
	lookup := func(key string) (any, bool) {
		for _, m := range []map[string]json.RawMessage{ipam, top} {
			var v any
			if raw, ok := m[key]; ok && json.Unmarshal(raw, &v) == nil && v != nil {
				return v, true
			}
		}
		return nil, false
	}
	if v, ok := lookup("agent_socket"); ok {
		path, isString := v.(string)
		if !isString {
			c.err = &cniError{code: codeDecodingFailure,
				msg: "failed to load netconf: agent_socket must be a JSON string, got " + jsType(v)}
			return c
		}
		if !strings.HasPrefix(path, "/") || strings.IndexByte(path, 0) >= 0 {
			c.err = &cniError{code: codeInvalidNetworkConfig,
				msg: "agent_socket " + quote(path) + " is not an absolute path"}
			return c
		}
		c.agentSocket = path
	}
	for _, t := range []struct {
		key string
		max float64
		to  *time.Duration
	}{
		{"agent_connect_timeout", maxConnectSeconds, &c.connectTimeout},
		{"agent_answer_timeout", maxAnswerSeconds, &c.answerTimeout},
	} {
		v, ok := lookup(t.key)
		if !ok {
			continue
		}
		n, isNumber := v.(float64)
		if !isNumber {
			c.err = &cniError{code: codeDecodingFailure,
				msg: "failed to load netconf: " + t.key + " must be a JSON number, got " + jsType(v)}
			return c
		}
		if n != math.Trunc(n) || n < 1 || n > t.max {
			c.err = &cniError{code: codeInvalidNetworkConfig, msg: fmt.Sprintf(
				"%s %s is not a whole number of seconds from 1 to %d", t.key, strconv.FormatFloat(n, 'f', -1, 64), int(t.max))}
			return c
		}
		*t.to = time.Duration(n) * time.Second
	}
	return c
}

// jsType names a decoded JSON value's type as JavaScript's typeof does (the plugin's messages).
func jsType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	}
	return "object"
}

// quote writes s as JSON.stringify does (no HTML escaping, unlike json.Marshal).
func quote(s string) string {
	var b strings.Builder
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	_ = e.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}
